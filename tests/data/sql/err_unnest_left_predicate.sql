-- LEFT JOIN UNNEST with a condition other than TRUE (Flink's message)
CREATE TABLE o (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, tag FROM o LEFT JOIN UNNEST(tags) AS t (tag) ON tag <> 'a';
