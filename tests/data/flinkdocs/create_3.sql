-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, Metadata Columns)
-- changed: "..." in the WITH clause filled in.
CREATE TABLE MyTable (
  `user_id` BIGINT,
  `name` STRING,
  `timestamp` BIGINT METADATA    -- cast the timestamp as BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
);
