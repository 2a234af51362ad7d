-- UNNEST under GROUP BY (a stateful query) is not supported yet
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT tag, COUNT(*) FROM o CROSS JOIN UNNEST(tags) AS t (tag) GROUP BY tag;
