-- a lookup key and its probe value must have the same kind of type
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE b (k STRING, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT a.id, d.name FROM a JOIN b FOR SYSTEM_TIME AS OF a.pt AS d ON a.k = d.k;
