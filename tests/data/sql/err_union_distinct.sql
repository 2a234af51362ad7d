-- UNION (without ALL) deduplicates, which needs state
CREATE TABLE a (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, name FROM a UNION SELECT id, name FROM a;
