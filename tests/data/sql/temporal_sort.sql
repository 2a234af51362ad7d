-- ORDER BY an event-time attribute without LIMIT (Flink's TemporalSort): rows are held until
-- the watermark passes their time, then emitted in order of time and the further keys (ties in
-- arrival order); a column ordered by but not selected is carried and dropped; a row whose time
-- is NULL has no place and is dropped
CREATE TABLE Orders (order_id INT, order_time TIMESTAMP(3), note STRING,
  WATERMARK FOR order_time AS order_time - INTERVAL '2' SECOND)
WITH ('connector' = 'values', 'data' = '+I[5, 2024-01-01 10:00:05, e];+I[3, 2024-01-01 10:00:03, c];+I[4, 2024-01-01 10:00:03, d];+I[1, 2024-01-01 10:00:01, a];+I[9, 2024-01-01 10:00:09, i];+I[8, 2024-01-01 10:00:08, h];+I[7, NULL, nul];+I[6, 2024-01-01 10:00:08, g];+I[10, 2024-01-01 10:00:08, g]');
SELECT * FROM Orders ORDER BY order_time, order_id;
SELECT order_id, note FROM Orders WHERE order_id > 2 ORDER BY order_time, note DESC;
EXPLAIN SELECT order_id, note FROM Orders ORDER BY order_time, note DESC;
-- one row per batch: the watermark moves between rows, and a row that comes after the
-- watermark passed its time is late: dropped, and counted on stderr
SET 'execution.batch-size' = '1';
SELECT order_id, note FROM Orders ORDER BY order_time;
