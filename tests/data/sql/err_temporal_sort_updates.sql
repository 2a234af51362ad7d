-- TemporalSort of a changelog with updates (Flink: it does not consume update and delete changes)
CREATE TABLE o (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, 2024-01-01 10:00:00]');
SELECT id, ts FROM o ORDER BY ts;
