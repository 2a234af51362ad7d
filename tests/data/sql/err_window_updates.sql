-- window functions read append-only tables
CREATE TABLE t (id INT NOT NULL, ts TIMESTAMP(3), v INT, PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
SELECT window_start, SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
