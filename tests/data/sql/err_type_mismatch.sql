CREATE TABLE gen (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
