-- UNNEST over a subquery (the probe side must be a table yet)
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, tag FROM (SELECT id, tags FROM o WHERE id > 1) s CROSS JOIN UNNEST(s.tags) AS t (tag);
