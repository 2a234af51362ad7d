-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), ADD
-- added: tables the snippet uses, and a SELECT at the end, so that the table is planned
CREATE TABLE MyTable (id INT NOT NULL, measurement BIGINT, `data` STRING, col1 INT, col2 INT, col3 INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- add a new column 
ALTER TABLE MyTable ADD category_id STRING COMMENT 'identifier of the category';

-- add columns, constraint, and watermark
ALTER TABLE MyTable ADD (
    log_ts STRING COMMENT 'log timestamp string' FIRST,
    ts AS TO_TIMESTAMP(log_ts) AFTER log_ts,
    PRIMARY KEY (id) NOT ENFORCED,
    WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
);
SELECT * FROM MyTable;
