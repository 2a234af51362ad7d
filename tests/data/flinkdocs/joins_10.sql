-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/joins/ (Joins, Array Expansion)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, tags ARRAY<STRING>) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT order_id, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t (tag)
