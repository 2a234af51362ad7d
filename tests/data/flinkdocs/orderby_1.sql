-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/orderby/ (ORDER BY clause)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT *
FROM Orders
ORDER BY order_time, order_id
