-- CREATE OR REPLACE TABLE with IF NOT EXISTS: Flink's grammar refuses the pair
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE OR REPLACE TABLE IF NOT EXISTS copy WITH ('connector' = 'print') AS SELECT id FROM src;
