CREATE TABLE orders (id INT, tags ARRAY<STRING>) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT id, tag FROM orders LEFT JOIN LATERAL TABLE(split(tags)) t(tag) ON TRUE;
