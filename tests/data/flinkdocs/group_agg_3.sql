-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/group-agg/ (Group Aggregation, DISTINCT Aggregation)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, users STRING, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT COUNT(DISTINCT order_id) FROM Orders
