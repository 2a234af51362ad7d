-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), MODIFY
-- added: tables the snippet uses (with log_ts, ts, a primary key and a watermark, which it says
-- must exist: MODIFY changes them), and a SELECT at the end, so that the table is planned
CREATE TABLE MyTable (id INT NOT NULL, measurement BIGINT, log_ts STRING, ts AS TO_TIMESTAMP(log_ts), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- modify a column type, comment and position
ALTER TABLE MyTable MODIFY measurement double COMMENT 'unit is bytes per second' AFTER `id`;

-- modify definition of column log_ts and ts, primary key, watermark. They must exist in table schema
ALTER TABLE MyTable MODIFY (
    log_ts STRING COMMENT 'log timestamp string' AFTER `id`,  -- reorder columns
    ts AS TO_TIMESTAMP(log_ts) AFTER log_ts,
    PRIMARY KEY (id) NOT ENFORCED,
    WATERMARK FOR ts AS ts -- modify watermark strategy
);
SELECT * FROM MyTable;
