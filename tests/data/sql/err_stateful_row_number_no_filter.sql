-- ROW_NUMBER() without a filter on it: an OVER aggregation, not Top-N
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a, 5]; -U[1, a, 5]; +U[1, a, 6]');
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x) AS rn FROM t);
