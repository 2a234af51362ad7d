-- a column list of UNNEST with more names than its columns
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT * FROM o CROSS JOIN UNNEST(tags) AS t (tag, extra);
