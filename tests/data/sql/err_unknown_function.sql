CREATE TABLE gen (name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT UPPPER(name) FROM gen;
