-- a branch of UNION ALL whose "*" gives another number of columns
CREATE TABLE a (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT) WITH ('connector' = 'print');
SELECT id FROM a UNION ALL SELECT * FROM a;
