CREATE TABLE gen (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (x INT) WITH ('connector' = 'print');
INSERT INTO out SELECT id + name FROM gen;
