-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), SET
-- added: tables the snippet uses, and a SELECT at the end, so that the table is planned
CREATE TABLE DataGenSource (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- set 'rows-per-second'
ALTER TABLE DataGenSource SET ('rows-per-second' = '10');
SELECT * FROM DataGenSource;
