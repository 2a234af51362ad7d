CREATE TABLE gen (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE out (a INT, b STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT * FROM gen;
