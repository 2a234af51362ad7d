-- REPLACE TABLE of a table that does not exist (Flink: the table to be replaced doesn't exist)
CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
REPLACE TABLE copy WITH ('connector' = 'print') AS SELECT id, name FROM src;
