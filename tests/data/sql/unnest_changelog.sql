-- UNNEST is stateless and keeps the input's changelog: each change applies to every row the
-- array expands to (an update's -U rows for the old array, +U rows for the new one)
CREATE TABLE c (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/changes', 'format' = 'debezium-json');
SELECT id, tag FROM c CROSS JOIN UNNEST(tags) AS t (tag);
