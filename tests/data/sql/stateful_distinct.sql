-- SELECT DISTINCT over a changelog: a row goes out once however many input rows have it, and
-- is deleted when the last of them is; NULLs are one value
CREATE TABLE t (id INT NOT NULL, c STRING, k INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, x, 1]; +I[2, x, 1]; +I[3, null, null]; +I[4, null, null]; -D[1, x, 1]; -U[2, x, 1]; +U[2, y, 1]; -D[3, null, null]; -D[4, null, null]; +I[5, x, 1]');
CREATE TABLE out (c STRING, k INT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT DISTINCT c, k FROM t;
INSERT INTO out SELECT DISTINCT c, k FROM t;
