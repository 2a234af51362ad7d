-- an interval join as Flink's docs write it (FROM a, b WHERE ...): a regular join whose
-- conditions come from WHERE; insert-only inputs give insert-only rows
CREATE TABLE Orders (id INT, order_time TIMESTAMP(3), amount INT) WITH ('connector' = 'values',
  'data' = '+I[1, 2024-01-01 10:00:00, 5]; +I[2, 2024-01-01 11:00:00, 7]; +I[3, 2024-01-01 12:00:00, 9]');
CREATE TABLE Shipments (order_id INT, ship_time TIMESTAMP(3)) WITH ('connector' = 'values',
  'data' = '+I[1, 2024-01-01 12:00:00]; +I[2, 2024-01-01 20:00:00]; +I[3, 2024-01-01 13:00:00]');
SELECT o.id, o.amount, s.ship_time FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
EXPLAIN SELECT o.id, o.amount, s.ship_time FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time;
