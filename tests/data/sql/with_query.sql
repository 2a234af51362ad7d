-- WITH queries (CTEs) are inlined like views; a later one may read an earlier one
CREATE TABLE gen (id INT NOT NULL, name STRING)
WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[2, b]; +I[3, c]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
INSERT INTO out
WITH big AS (SELECT id, name FROM gen WHERE id >= 2),
     loud AS (SELECT id, UPPER(name) AS name FROM big)
SELECT id, name FROM loud;
WITH s AS (SELECT id + 100 AS n FROM gen) SELECT s.n FROM s WHERE n <> 102;
-- a view whose query has a WITH query and a subquery
CREATE VIEW v AS WITH s AS (SELECT id, name FROM gen) SELECT t.name FROM (SELECT * FROM s) AS t;
SHOW CREATE VIEW v;
SELECT * FROM v;
