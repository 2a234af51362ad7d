-- a subquery predicate in the select list is refused by name
CREATE TABLE o (id INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE p (pid INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, NOT EXISTS (SELECT * FROM p WHERE p.k = o.k) FROM o;
