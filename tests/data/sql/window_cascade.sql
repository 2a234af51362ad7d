-- Cascading window aggregation (Flink's window aggregation page): a window function over a view
-- (or WITH query) whose time column is the window_time of its window aggregation; the outer
-- windows fire when the watermark passes their end, after the inner ones it is fed by
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND) WITH ('connector' = 'values', 'data' =
  '+I[2020-04-15 08:05:00, 4.00, C, supplier1]; +I[2020-04-15 08:07:00, 2.00, A, supplier1]; +I[2020-04-15 08:09:00, 5.00, D, supplier2]; +I[2020-04-15 08:11:00, 3.00, B, supplier2]; +I[2020-04-15 08:13:00, 1.00, E, supplier1]; +I[2020-04-15 08:17:00, 6.00, F, supplier2]; +I[2020-04-15 08:21:00, null, G, null]');
CREATE VIEW window1 AS
SELECT window_start, window_end, window_time as rowtime, SUM(price) as partial_price
  FROM TABLE(
    TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
  GROUP BY supplier_id, window_start, window_end, window_time;
EXPLAIN SELECT window_start, window_end, SUM(partial_price) as total_price
  FROM TABLE(
      TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;
SELECT window_start, window_end, SUM(partial_price) as total_price, COUNT(*) AS parts
  FROM TABLE(
      TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;
-- a WITH query, a HOP over it, and the inner windows' results as they fire (batch size 1: the
-- watermark moves after each row, the outer windows fire while the input is read)
SET 'execution.batch-size' = '1';
WITH w5 AS (SELECT supplier_id, window_time AS t, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) GROUP BY supplier_id, window_start, window_end, window_time)
SELECT window_end, supplier_id, SUM(n) AS n FROM TABLE(HOP(TABLE w5, DESCRIPTOR(t), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, supplier_id;
