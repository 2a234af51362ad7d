-- Top-N (rn <= 2 per partition) over a changelog: the deletion or update of a ranked row moves
-- the rows below it up; a NULL sorts last descending; a NULL partition key is one partition
CREATE TABLE t (id INT NOT NULL, p STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, a, null]; +I[3, a, 7]; +I[4, a, 6]; -D[3, a, 7]; -U[4, a, 6]; +U[4, a, 1]; +I[5, null, 3]; +I[6, null, 4]; -U[1, a, 5]; +U[1, b, 5]');
CREATE TABLE out (p STRING, id INT, v INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT p, id, v, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY p ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2;
