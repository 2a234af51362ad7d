-- a window aggregation keeps window_start and window_end in every grouping set
CREATE TABLE t (g STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT window_start, window_end, g, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY ROLLUP (window_start, window_end, g);
