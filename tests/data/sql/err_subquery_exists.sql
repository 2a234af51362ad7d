CREATE TABLE orders (id INT, product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM orders WHERE EXISTS (SELECT 1);
