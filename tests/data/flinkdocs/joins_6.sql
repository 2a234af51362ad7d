-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/joins/ (Joins, Interval Joins)
-- added: tables the snippet uses
CREATE TABLE Orders (id INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE Shipments (order_id INT, ship_time TIMESTAMP(3), WATERMARK FOR ship_time AS ship_time) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT *
FROM Orders o, Shipments s
WHERE o.id = s.order_id
AND o.order_time BETWEEN s.ship_time - INTERVAL '4' HOUR AND s.ship_time
