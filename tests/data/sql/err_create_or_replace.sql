-- CREATE OR REPLACE TABLE needs AS SELECT (Flink's grammar has no other form)
CREATE OR REPLACE TABLE copy (id BIGINT) WITH ('connector' = 'print');
