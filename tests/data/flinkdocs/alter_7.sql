-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), RESET
-- added: tables the snippet uses, and a SELECT at the end, so that the table is planned
CREATE TABLE DataGenSource (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'rows-per-second' = '10');
-- reset 'rows-per-second' to the default value
ALTER TABLE DataGenSource RESET ('rows-per-second');
SELECT * FROM DataGenSource;
