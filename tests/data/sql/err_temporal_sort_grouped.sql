-- ORDER BY the time column after a GROUP BY (its time attribute is gone, as in Flink)
CREATE TABLE o (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'data' = '+I[1, 2024-01-01 10:00:00]');
SELECT ts, COUNT(*) AS n FROM o GROUP BY ts ORDER BY ts;
