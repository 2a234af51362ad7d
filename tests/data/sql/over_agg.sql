-- OVER aggregation (Flink's Over Aggregation page): each row with aggregates over a frame of its
-- partition's rows ordered by a time attribute; event time waits for the watermark
CREATE TABLE Orders (order_id INT, product STRING, amount INT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH ('connector' = 'values', 'data' =
  '+I[1, a, 10, 2024-01-01 10:00:00]; +I[2, b, 5, 2024-01-01 10:10:00]; +I[3, a, 20, 2024-01-01 10:30:00]; +I[4, a, NULL, 2024-01-01 10:30:00]; +I[5, b, 7, 2024-01-01 11:05:00]; +I[6, a, 1, 2024-01-01 11:20:00]; +I[7, a, 3, 2024-01-01 11:40:00]');
EXPLAIN SELECT order_id, order_time, amount, SUM(amount) OVER (PARTITION BY product ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS one_hour_prod_amount_sum FROM Orders;
-- RANGE: rows of the same time are peers (10:30); rows older than an hour leave the frame
SELECT order_id, product, amount, SUM(amount) OVER (PARTITION BY product ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS s FROM Orders;
-- ROWS: the row and the one before it; NULL amounts are not counted
EXPLAIN SELECT order_id, COUNT(amount) OVER w AS c, MIN(amount) OVER w AS mn FROM Orders
  WINDOW w AS (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
SELECT order_id, product, amount, COUNT(amount) OVER w AS c, MIN(amount) OVER w AS mn,
  MAX(amount) OVER w AS mx, AVG(amount) OVER w AS av, SUM(amount) OVER w AS s FROM Orders
  WINDOW w AS (PARTITION BY product ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
-- no frame: RANGE UNBOUNDED PRECEDING; no PARTITION BY: one partition; COUNT(*) counts NULLs
SELECT order_id, SUM(amount) OVER (ORDER BY order_time) AS s, COUNT(*) OVER (ORDER BY order_time
  RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c, MAX(amount) OVER (ORDER BY order_time) AS mx FROM Orders;
-- ROWS UNBOUNDED PRECEDING, ROWS CURRENT ROW; an expression argument and WHERE go in a Calc
EXPLAIN SELECT order_id, SUM(amount * 2) OVER (PARTITION BY product ORDER BY order_time ROWS UNBOUNDED PRECEDING) AS s
  FROM Orders WHERE order_id > 1;
SELECT order_id, SUM(amount * 2) OVER (PARTITION BY product ORDER BY order_time ROWS UNBOUNDED PRECEDING) AS s,
  order_id + COUNT(*) OVER (PARTITION BY product ORDER BY order_time ROWS UNBOUNDED PRECEDING) AS idc
  FROM Orders WHERE order_id > 1;
SELECT order_id, SUM(amount) OVER (PARTITION BY product ORDER BY order_time ROWS CURRENT ROW) AS s FROM Orders;
-- a late row (at or behind the watermark when it comes) is dropped, and counted on stderr
SET 'execution.batch-size' = '1';
CREATE TABLE Late (t TIMESTAMP(3), v INT, WATERMARK FOR t AS t) WITH ('connector' = 'values',
  'data' = '+I[2020-04-15 08:01:00, 1]; +I[2020-04-15 08:12:00, 2]; +I[2020-04-15 08:02:00, 4]; +I[2020-04-15 08:12:00, 8]; +I[2020-04-15 08:14:00, 16]');
SELECT t, v, SUM(v) OVER (ORDER BY t RANGE BETWEEN INTERVAL '10' MINUTE PRECEDING AND CURRENT ROW) AS s FROM Late;
-- out of order within the watermark's delay: aggregated in time order, each as soon as the
-- watermark passes it (x at 08:01 comes out when 08:14 moves the watermark to 08:04)
CREATE TABLE Ooo (k STRING, t TIMESTAMP(3), v INT, WATERMARK FOR t AS t - INTERVAL '10' MINUTE)
  WITH ('connector' = 'values', 'data' = '+I[y, 2020-04-15 08:06:00, 2]; +I[x, 2020-04-15 08:05:00, 1]; +I[x, 2020-04-15 08:01:00, 4]; +I[z, 2020-04-15 08:14:00, 8]; +I[x, 2020-04-15 08:03:00, 16]; +I[y, 2020-04-15 08:30:00, 32]');
SELECT k, t, v, SUM(v) OVER (PARTITION BY k ORDER BY t) AS s FROM Ooo;
-- processing time: each row on arrival
CREATE TABLE P (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[x, 1]; +I[y, 2]; +I[x, 3]; +I[x, NULL]; +I[x, 5]');
EXPLAIN SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM P;
SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s,
  MAX(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS mx FROM P;
-- Top-N is still ROW_NUMBER() OVER
SELECT * FROM (SELECT order_id, product, ROW_NUMBER() OVER (PARTITION BY product ORDER BY amount DESC) AS rn FROM Orders) WHERE rn = 1;
