-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, Computed Columns)
-- added: the SELECT at the end (and a ";" before it where the snippet has none), so that the table is planned
-- changed: "..." in the WITH clause filled in.
CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `quantity` DOUBLE,
  `cost` AS price * quantity  -- evaluate expression and supply the result to queries
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
);
SELECT * FROM MyTable;
