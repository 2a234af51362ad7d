-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/connectors/table/print/ (Print SQL Connector)
-- added: tables the snippet uses, and an INSERT into the table, so that it is planned
CREATE TABLE source_table (f0 INT, f1 INT, f2 STRING, f3 DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE print_table (
  f0 INT,
  f1 INT,
  f2 STRING,
  f3 DOUBLE
) WITH (
  'connector' = 'print'
);
INSERT INTO print_table SELECT * FROM source_table;
