-- IN's values compare with the subquery's columns
CREATE TABLE o (id INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE p (pid INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, k FROM o WHERE id IN (SELECT k FROM p);
