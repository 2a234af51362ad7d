-- ORDER BY a TIMESTAMP column that is no time attribute (no WATERMARK FOR it)
CREATE TABLE o (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'values', 'data' = '+I[1, 2024-01-01 10:00:00]');
SELECT id, ts FROM o ORDER BY ts, id;
