-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/set-ops/ (Set Operations, IN)
-- added: tables the snippet uses
CREATE TABLE Orders (`user` STRING, amount INT, product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE NewProducts (product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT user, amount
FROM Orders
WHERE product IN (
    SELECT product FROM NewProducts
)
