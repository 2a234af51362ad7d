CREATE TABLE orders (id INT, product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id, (SELECT MAX(id) FROM orders) FROM orders;
