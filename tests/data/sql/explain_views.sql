CREATE TABLE gen (id INT NOT NULL, v INT, w STRING) WITH ('connector' = 'datagen');
CREATE TEMPORARY VIEW evens AS SELECT id, v FROM gen WHERE id % 2 = 0;
CREATE TABLE out (id INT NOT NULL, v INT) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO out SELECT * FROM evens WHERE v > 3;
