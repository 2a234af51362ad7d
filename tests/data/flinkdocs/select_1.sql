-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/select/ (SELECT & WHERE clause)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, id INT, price DOUBLE, tax DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM Orders
