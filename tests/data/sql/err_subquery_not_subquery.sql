-- EXISTS takes a subquery
CREATE TABLE o (id INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE p (pid INT NOT NULL, k STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, k FROM o WHERE EXISTS (1);
