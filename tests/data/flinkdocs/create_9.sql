-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, AS select_statement)
-- added: tables the snippet uses
CREATE TABLE source_table (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- changed: "..." in the WITH clause filled in.
CREATE TABLE my_ctas_table
WITH (
    'connector' = 'kafka',
    'topic' = 'my_ctas_table', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
)
AS SELECT id, name, age FROM source_table WHERE mod(id, 10) = 0;
