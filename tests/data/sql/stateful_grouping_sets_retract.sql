-- GROUPING SETS over a changelog: retractions reach every set's group, a group whose last row
-- goes is deleted in each set, NULL keys are one group and apart from the rows of a set that
-- leaves the key out
CREATE TABLE t (id INT NOT NULL, g STRING, h STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, p, 5]; +I[2, a, q, 9]; +I[3, null, p, 1]; -U[2, a, q, 9]; +U[2, b, q, 9]; -D[1, a, p, 5]; +I[4, null, null, null]; -D[3, null, p, 1]');
SELECT g, h, COUNT(*) AS n, SUM(x) AS s, GROUPING_ID(g, h) AS gid FROM t GROUP BY GROUPING SETS ((g, h), (g), ());
