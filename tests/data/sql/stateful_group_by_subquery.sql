-- GROUP BY over a subquery (an empty source: no rows)
CREATE TABLE gen (id INT NOT NULL, name STRING) WITH ('connector' = 'values');
SELECT name, COUNT(*) FROM (SELECT name FROM gen) GROUP BY name;
