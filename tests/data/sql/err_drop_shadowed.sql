CREATE TABLE t (id INT) WITH ('connector' = 'blackhole');
CREATE TEMPORARY TABLE t (id INT) WITH ('connector' = 'print');
DROP TABLE t;
