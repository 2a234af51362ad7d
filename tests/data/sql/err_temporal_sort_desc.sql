-- ORDER BY an event-time attribute DESC without LIMIT (Flink sorts time ascending only)
CREATE TABLE o (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'data' = '+I[1, 2024-01-01 10:00:00]');
SELECT id FROM o ORDER BY ts DESC;
