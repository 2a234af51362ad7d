-- a window function (OVER) is parsed; the planner does not run it yet (issue 19)
CREATE TABLE a (id INT, k INT, v INT) WITH ('connector' = 'values', 'data' = '+I[1, 1, 5]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM a;
