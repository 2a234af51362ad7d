-- a lookup join needs an equality on a column of the lookup table
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT a.id, b.name FROM a JOIN b FOR SYSTEM_TIME AS OF a.pt ON a.k > b.k AND b.name = b.name;
