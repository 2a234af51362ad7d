-- a join without FOR SYSTEM_TIME AS OF is a regular join: not supported
CREATE TABLE a (id INT, k INT) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT a.id, b.name FROM a JOIN b ON a.k = b.k;
