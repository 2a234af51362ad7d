-- a lookup join inside a WITH query, read through a subquery
CREATE TABLE s (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1]; +I[2]');
CREATE TABLE dim (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'data' = '+I[1, one]; +I[2, two]');
WITH j AS (SELECT s.id, d.name FROM s JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.id = d.id)
SELECT name FROM (SELECT * FROM j WHERE id > 1) AS x;
