-- interval joins on event time (Flink's Joins page): the bounds between the two time attributes
-- make an IntervalJoin, insert-only for outer joins too: an unmatched row is emitted NULL-padded
-- once the watermark passes the last time the other side could join it (here: at the end)
CREATE TABLE Orders (id INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time)
WITH ('connector' = 'values', 'data' = '+I[1, 2024-01-01 10:00:00]; +I[2, 2024-01-01 10:00:00]; +I[3, 2024-01-01 12:00:00]; +I[4, null]');
CREATE TABLE Shipments (order_id INT, ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '1' SECOND)
WITH ('connector' = 'values', 'data' = '+I[1, 2024-01-01 11:00:00]; +I[2, 2024-01-01 15:00:00]; +I[3, 2024-01-01 12:00:00]; +I[3, 2024-01-01 16:30:00]; +I[5, 2024-01-01 10:00:00]');
-- (each job's rows materialized: the two sources' rows interleave in any order)
CREATE TABLE out (id INT, order_time TIMESTAMP(3), order_id INT, ship_time TIMESTAMP(3))
WITH ('connector' = 'values', 'sink.materialize' = 'true');
EXPLAIN INSERT INTO out SELECT * FROM Orders o, Shipments s
  WHERE o.id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
INSERT INTO out SELECT * FROM Orders o, Shipments s
  WHERE o.id = s.order_id AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
-- strict bounds and the sides written the other way round: (-4 h, 0] as left - right bounds
EXPLAIN INSERT INTO out SELECT * FROM Orders o JOIN Shipments s ON o.id = s.order_id
  AND s.ship_time >= o.order_time AND s.ship_time < o.order_time + INTERVAL '4' HOUR;
INSERT INTO out SELECT * FROM Orders o LEFT JOIN Shipments s ON o.id = s.order_id
  AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
INSERT INTO out SELECT * FROM Orders o FULL JOIN Shipments s ON o.id = s.order_id
  AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
-- an append-only sink takes an outer interval join (a regular outer join would retract)
CREATE TABLE log (id INT, ship_time TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO log SELECT o.id, s.ship_time FROM Orders o LEFT JOIN Shipments s ON o.id = s.order_id
  AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time WHERE o.id < 3;
