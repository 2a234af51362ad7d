CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE copy (id BIGINT) WITH ('connector' = 'print');
REPLACE TABLE copy WITH ('connector' = 'print') AS SELECT id, name FROM src;
