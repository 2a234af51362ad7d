-- OVER windows are ordered ascending
CREATE TABLE t (id INT, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT id, SUM(v) OVER (ORDER BY ts DESC) FROM t;
