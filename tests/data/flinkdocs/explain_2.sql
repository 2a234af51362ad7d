-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/explain/ (EXPLAIN Statements, SQL CLI)
-- changed: the "Flink SQL>" prompts and "> " continuation marks are left out.
CREATE TABLE MyTable1 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');
CREATE TABLE MyTable2 (`count` bigint, word VARCHAR(256)) WITH ('connector' = 'datagen');

EXPLAIN ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN SELECT `count`, word FROM MyTable1 
WHERE word LIKE 'F%' 
UNION ALL 
SELECT `count`, word FROM MyTable2;
