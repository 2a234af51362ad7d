-- a window function inside a subquery (the Top-N form) is refused where it is written (issue 19)
CREATE TABLE a (id INT, k INT, v INT) WITH ('connector' = 'values', 'data' = '+I[1, 1, 5]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT id FROM (
  SELECT id, RANK() OVER (ORDER BY v) AS r FROM a
) WHERE r <= 3;
