-- a view with GROUP BY, HAVING and ORDER BY is stored (qualified) and read back; the planner
-- refuses it where the view's stored query has GROUP BY (issue 19)
CREATE TABLE a (id INT, k INT, v INT) WITH ('connector' = 'values', 'data' = '+I[1, 1, 5]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
CREATE VIEW totals AS SELECT k, SUM(v) AS total FROM a GROUP BY k HAVING COUNT(*) > 0 ORDER BY total DESC;
SHOW CREATE VIEW totals;
INSERT INTO b SELECT k, CAST(total AS STRING) FROM totals;
