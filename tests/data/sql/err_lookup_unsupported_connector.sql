-- a connector without lookups cannot be the lookup side
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE g (k INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SELECT a.id, d.name FROM a JOIN g FOR SYSTEM_TIME AS OF a.pt AS d ON a.k = d.k;
