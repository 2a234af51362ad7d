-- UNNEST of two arrays at once
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT * FROM o CROSS JOIN UNNEST(tags, tags) AS t (a, b);
