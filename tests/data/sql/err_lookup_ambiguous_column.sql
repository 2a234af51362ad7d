-- a bare column both sides of a lookup join have is ambiguous
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT id, k, name FROM a JOIN b FOR SYSTEM_TIME AS OF a.pt AS d ON a.k = d.k;
