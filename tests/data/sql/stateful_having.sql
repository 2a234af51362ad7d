-- HAVING after a GROUP BY: the filter passes the aggregate's changes whose row it keeps, so a
-- group entering the result comes as +U (no +I before it) and one leaving ends with a -U
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, a, 6]; +I[3, b, 1]; +I[4, a, 1]; -D[2, a, 6]; -U[3, b, 1]; +U[3, b, 20]');
CREATE TABLE out (g STRING, n BIGINT, s INT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT g, COUNT(*), SUM(x) FROM t GROUP BY g HAVING SUM(x) > 10;
INSERT INTO out SELECT g, COUNT(*), SUM(x) FROM t GROUP BY g HAVING SUM(x) > 10;
