-- a regular join of two changelogs: the plan (rows: tests/integration/stateful_join.sh)
CREATE TABLE a (id INT, k INT) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
EXPLAIN SELECT a.id, b.name FROM a JOIN b ON a.k = b.k;
