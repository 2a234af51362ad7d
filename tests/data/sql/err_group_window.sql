-- Flink's deprecated SESSION group window is refused by name (TUMBLE and HOP group windows run)
CREATE TABLE clicks (usr STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT usr, COUNT(*) FROM clicks GROUP BY usr, SESSION(ts, INTERVAL '1' MINUTE);
