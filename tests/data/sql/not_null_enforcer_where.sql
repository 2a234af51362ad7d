-- The default enforcer (ERROR) lets a query that filters the NULLs out run.
CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[null, b]; +I[3, c]');
CREATE TABLE out (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values');
INSERT INTO out SELECT id, name FROM src WHERE id IS NOT NULL;
