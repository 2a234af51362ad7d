CREATE TABLE gen (id INT NOT NULL, pt AS PROCTIME()) WITH ('connector' = 'values');
CREATE TABLE dim (id INT NOT NULL, name STRING) WITH ('connector' = 'values');
SELECT s.id, d.name FROM (SELECT * FROM gen) AS s
JOIN dim FOR SYSTEM_TIME AS OF s.pt AS d ON s.id = d.id;
