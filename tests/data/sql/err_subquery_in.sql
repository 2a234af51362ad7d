CREATE TABLE orders (id INT, product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE new_products (product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id FROM orders WHERE product IN (SELECT product FROM new_products);
