-- aggregate OVER calls are COUNT, SUM, AVG, MIN and MAX
CREATE TABLE t (id INT, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT id, SUM(v) OVER (ORDER BY ts), RANK() OVER (ORDER BY ts) FROM t;
