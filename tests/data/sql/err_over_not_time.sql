-- OVER windows are ordered by a time attribute (a column with a WATERMARK, or PROCTIME())
CREATE TABLE t (id INT, ts TIMESTAMP(3), v INT) WITH ('connector' = 'values');
SELECT id, SUM(v) OVER (PARTITION BY id ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM t;
