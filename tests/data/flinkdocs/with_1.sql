-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/with/ (WITH clause)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, id INT, price DOUBLE, tax DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
WITH orders_with_total AS (
    SELECT order_id, price + tax AS total
    FROM Orders
)
SELECT order_id, SUM(total)
FROM orders_with_total
GROUP BY order_id;
