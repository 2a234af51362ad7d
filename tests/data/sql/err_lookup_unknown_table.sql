-- the lookup table must exist
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
SELECT a.id, d.name FROM a JOIN nope FOR SYSTEM_TIME AS OF a.pt AS d ON a.k = d.k;
