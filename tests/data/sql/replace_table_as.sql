-- [CREATE OR] REPLACE TABLE ... AS SELECT (Flink's RTAS): the table's definition is replaced by
-- the query's columns and the WITH options given (in one step), then the query's rows go in
CREATE TABLE src (id BIGINT, name STRING)
WITH ('connector' = 'values', 'data' = '+I[1, a];+I[2, NULL];+I[3, c]', 'bounded' = 'true');
CREATE TABLE copy (id INT, note STRING) WITH ('connector' = 'blackhole');
REPLACE TABLE copy WITH ('connector' = 'print', 'print-identifier' = 'replaced')
AS SELECT id, name FROM src WHERE id <> 2;
SHOW CREATE TABLE copy;
-- CREATE OR REPLACE creates a table that is not there, and replaces one that is
CREATE OR REPLACE TABLE fresh COMMENT 'made' WITH ('connector' = 'print', 'print-identifier' = 'fresh')
AS SELECT name, id * 10 AS tens FROM src;
CREATE OR REPLACE TABLE copy WITH ('connector' = 'print', 'print-identifier' = 'again')
AS SELECT id, UPPER(name) AS up FROM src WHERE id > 1;
DESCRIBE copy;
SHOW TABLES;
