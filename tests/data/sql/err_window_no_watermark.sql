-- a window over a column that is not an event-time attribute: Flink's message
CREATE TABLE t (ts TIMESTAMP(3), v INT) WITH ('connector' = 'values');
SELECT window_start, SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
