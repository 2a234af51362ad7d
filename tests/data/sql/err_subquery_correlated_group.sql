-- a correlated subquery with GROUP BY is not supported yet
CREATE TABLE o (id INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE p (pid INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, k FROM o WHERE EXISTS (SELECT k FROM p WHERE p.k = o.k GROUP BY k);
