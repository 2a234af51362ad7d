-- GROUP BY over a changelog: COUNT(x) and COUNT(DISTINCT x) skip NULLs, AVG of INT is an INT
-- (truncated toward zero), MIN/MAX survive the retraction of the current extreme, a NULL group
-- key is one group, a group whose last row goes is deleted and comes back as an insert
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, a, 9]; +I[3, a, 9]; +I[4, null, null]; +I[5, null, -7]; -D[2, a, 9]; -D[3, a, 9]; +I[6, b, -4]; -U[5, null, -7]; +U[5, null, -3]; -D[1, a, 5]; +I[7, a, null]; +I[8, b, -3]');
CREATE TABLE out (g STRING, n BIGINT, nx BIGINT, nd BIGINT, s INT, a INT, mn INT, mx INT) WITH ('connector' = 'print');
INSERT INTO out SELECT g, COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY g;
