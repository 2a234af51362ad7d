-- every OVER of one SELECT has the same window
CREATE TABLE t (id INT, ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT id, COUNT(v) OVER (PARTITION BY id ORDER BY ts), SUM(v) OVER (ORDER BY ts) FROM t;
