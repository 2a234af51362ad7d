-- an aggregate function cdcflow does not run
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a, 5]; -U[1, a, 5]; +U[1, a, 6]');
SELECT g, LISTAGG(x) FROM t GROUP BY g;
