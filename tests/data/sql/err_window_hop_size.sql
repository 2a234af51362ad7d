-- HOP's size must be a multiple of its slide
CREATE TABLE t (ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT window_start, SUM(v) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '4' MINUTE, INTERVAL '10' MINUTE)) GROUP BY window_start, window_end;
