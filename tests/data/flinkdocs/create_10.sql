-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, [CREATE OR] REPLACE TABLE)
-- added: tables the snippet uses (my_rtas_table must exist for REPLACE TABLE)
CREATE TABLE source_table (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE my_rtas_table (id BIGINT) WITH ('connector' = 'print');
-- changed: "..." in the WITH clause filled in.
REPLACE TABLE my_rtas_table
WITH (
    'connector' = 'kafka',
    'topic' = 'my_rtas_table', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
)
AS SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
