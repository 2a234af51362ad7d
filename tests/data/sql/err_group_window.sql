-- Flink's deprecated group windows are refused by name at the GROUP BY
CREATE TABLE clicks (usr STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT usr, COUNT(*) FROM clicks GROUP BY usr, HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE);
