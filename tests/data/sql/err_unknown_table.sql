CREATE TABLE orders (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM ordrs;
