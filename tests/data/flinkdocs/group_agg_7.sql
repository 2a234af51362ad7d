-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/group-agg/ (Group Aggregation, HAVING)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, users STRING, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT SUM(amount)
FROM Orders
GROUP BY users
HAVING SUM(amount) > 50
