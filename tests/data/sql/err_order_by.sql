-- a query-level ORDER BY without LIMIT: Flink's streaming error (with a LIMIT it is a Top-N:
-- stateful_sort_limit.sql)
CREATE TABLE a (id INT, k INT, v INT) WITH ('connector' = 'values', 'data' = '+I[1, 1, 5]');
SELECT id, k FROM a WHERE v > 0 ORDER BY k DESC NULLS LAST, id;
