CREATE TABLE gen (id INT, twice AS id * 2) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT id FROM gen;
