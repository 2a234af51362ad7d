-- Flink's deprecated group windows: GROUP BY TUMBLE(ts, size) / HOP(ts, slide, size) with
-- TUMBLE_START, TUMBLE_END, TUMBLE_ROWTIME, HOP_*, planned as the window table function's
-- aggregation (results once the watermark passes a window's end); unaliased items are EXPR$i
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND) WITH ('connector' = 'values', 'data' =
  '+I[2020-04-15 08:05:00, 4.00, C, supplier1]; +I[2020-04-15 08:07:00, 2.00, A, supplier1]; +I[2020-04-15 08:09:00, null, D, supplier2]; +I[2020-04-15 08:11:00, 3.00, B, null]; +I[2020-04-15 08:13:00, 1.00, E, supplier1]; +I[2020-04-15 08:17:00, 6.00, F, supplier2]; +I[null, 9.00, G, supplier3]');
EXPLAIN SELECT TUMBLE_START(bidtime, INTERVAL '10' MINUTE), TUMBLE_END(bidtime, INTERVAL '10' MINUTE), COUNT(DISTINCT supplier_id), SUM(price) AS total FROM Bid GROUP BY TUMBLE(bidtime, INTERVAL '10' MINUTE);
SELECT TUMBLE_START(bidtime, INTERVAL '10' MINUTE), TUMBLE_END(bidtime, INTERVAL '10' MINUTE), COUNT(DISTINCT supplier_id), SUM(price) AS total FROM Bid GROUP BY TUMBLE(bidtime, INTERVAL '10' MINUTE);
-- with other keys, HAVING, and the window's rowtime (end - 1 ms)
EXPLAIN SELECT supplier_id, HOP_START(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS s, HOP_ROWTIME(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS rt, SUM(price) FROM Bid GROUP BY HOP(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE), supplier_id HAVING COUNT(*) > 1 OR supplier_id IS NULL;
SELECT supplier_id, HOP_START(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS s, HOP_ROWTIME(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE) AS rt, SUM(price) FROM Bid GROUP BY HOP(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE), supplier_id HAVING COUNT(*) > 1 OR supplier_id IS NULL;
