-- a group window's column is a time attribute: WATERMARK FOR it, or PROCTIME()
CREATE TABLE clicks (usr STRING, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT usr, COUNT(*) FROM clicks GROUP BY usr, TUMBLE(ts, INTERVAL '1' MINUTE);
