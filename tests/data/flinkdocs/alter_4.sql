-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), DROP
-- added: tables the snippet uses (with a primary key and a watermark to drop), and a SELECT at
-- the end, so that the table is planned
CREATE TABLE MyTable (id INT NOT NULL, measurement BIGINT, col1 INT, col2 INT, col3 INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- drop a column
ALTER TABLE MyTable DROP measurement;

-- drop columns
ALTER TABLE MyTable DROP (col1, col2, col3);

-- drop primary key
ALTER TABLE MyTable DROP PRIMARY KEY;

-- drop a watermark
ALTER TABLE MyTable DROP WATERMARK;
SELECT * FROM MyTable;
