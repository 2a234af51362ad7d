-- a GROUP BY into a sink that only appends (filesystem): Flink's message, naming the
-- GroupAggregate node as Flink does
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a, 5]; -U[1, a, 5]; +U[1, a, 6]');
CREATE TABLE out (g STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent/out', 'format' = 'csv');
INSERT INTO out SELECT g, COUNT(*) FROM t GROUP BY g;
