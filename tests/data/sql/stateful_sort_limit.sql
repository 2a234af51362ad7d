-- ORDER BY ... LIMIT n over a changelog: Flink's SortLimit (a Top-N without PARTITION BY)
CREATE TABLE sales (cat STRING, product STRING, amount INT) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[a, p1, 5]; +I[a, p2, 9]; +I[a, p3, 7]; +I[b, q1, 1]; -D[a, p2, 9]; +I[a, p4, 6]');
SELECT product, amount FROM sales ORDER BY amount DESC LIMIT 2;
SELECT cat, SUM(amount) AS total FROM sales GROUP BY cat ORDER BY total DESC LIMIT 1;
EXPLAIN SELECT product, amount FROM sales ORDER BY amount DESC LIMIT 2;
