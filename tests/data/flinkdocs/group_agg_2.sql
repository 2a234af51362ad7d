-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/group-agg/ (Group Aggregation)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, users STRING, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT COUNT(*)
FROM Orders
GROUP BY order_id
