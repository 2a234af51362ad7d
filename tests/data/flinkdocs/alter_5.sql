-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), RENAME
-- added: tables the snippet uses, and a SELECT at the end, so that the table is planned
CREATE TABLE MyTable (id INT NOT NULL, measurement BIGINT, `data` STRING, col1 INT, col2 INT, col3 INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- rename column
ALTER TABLE MyTable RENAME `data` TO payload;

-- rename table
ALTER TABLE MyTable RENAME TO MyTable2;
SELECT * FROM MyTable2;
