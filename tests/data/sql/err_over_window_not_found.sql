-- OVER w names a window of the query's WINDOW clause
CREATE TABLE t (id INT, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT id, SUM(v) OVER w1 FROM t WINDOW w AS (ORDER BY ts);
