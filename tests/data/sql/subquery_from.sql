-- a subquery in FROM is inlined like a view: its filter and projection run on the one source
CREATE TABLE gen (id INT NOT NULL, name STRING)
WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[2, b]; +I[3, c]; +I[4, d]');
CREATE TABLE out (id INT NOT NULL, tag STRING) WITH ('connector' = 'print');
INSERT INTO out
SELECT s.id, CONCAT(tag, '!') FROM (SELECT id, UPPER(name) AS tag FROM gen WHERE id > 1) AS s
WHERE s.id < 4;
-- nested, and without an alias
SELECT x FROM (SELECT id * 10 AS x FROM (SELECT id FROM gen WHERE id <> 2) t) WHERE x >= 30;
