-- GROUPING() names a GROUP BY key; a window aggregation keeps window_start and window_end in
-- every grouping set
CREATE TABLE t (g STRING, h STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT g, GROUPING(h) FROM t GROUP BY ROLLUP (g);
