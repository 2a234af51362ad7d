-- a global aggregate (no GROUP BY) over a changelog: its one row is deleted when the last input
-- row is, and inserted again with the next
CREATE TABLE t (id INT NOT NULL, x BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, 10]; +I[2, null]; -U[1, 10]; +U[1, 30]; -D[1, 30]; -D[2, null]; +I[3, 4]');
CREATE TABLE out (n BIGINT, s BIGINT, mn BIGINT, mx BIGINT, a BIGINT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT COUNT(*), SUM(x), MIN(x), MAX(x), AVG(x) FROM t;
INSERT INTO out SELECT COUNT(*), SUM(x), MIN(x), MAX(x), AVG(x) FROM t;
