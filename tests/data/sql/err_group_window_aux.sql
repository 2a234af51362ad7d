-- an auxiliary function takes the GROUP BY's group window and its arguments
CREATE TABLE clicks (usr STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT usr, TUMBLE_END(ts, INTERVAL '5' MINUTE), COUNT(*) FROM clicks GROUP BY usr, TUMBLE(ts, INTERVAL '1' MINUTE);
