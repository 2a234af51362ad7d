-- UNNEST of a value that is neither an ARRAY nor a MAP
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, x FROM o CROSS JOIN UNNEST(id) AS t (x);
