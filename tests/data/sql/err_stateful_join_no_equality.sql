-- a regular join needs an equality between its sides
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a, 5]; -U[1, a, 5]; +U[1, a, 6]');
CREATE TABLE u (k STRING, y INT) WITH ('connector' = 'values', 'data' = '+I[a, 1]');
SELECT t.id, u.y FROM t JOIN u ON t.x > u.y;
