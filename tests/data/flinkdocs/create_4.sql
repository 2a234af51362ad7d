-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, Metadata Columns, VIRTUAL)
-- doc-error: a comma follows the last column ("`name` STRING,"): Flink refuses it too.
-- changed: "..." in the WITH clause filled in.
CREATE TABLE MyTable (
  `timestamp` BIGINT METADATA,       -- part of the query-to-sink schema
  `offset` BIGINT METADATA VIRTUAL,  -- not part of the query-to-sink schema
  `user_id` BIGINT,
  `name` STRING,
) WITH (
  'connector' = 'kafka',
  'topic' = 'user_behavior', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
);
