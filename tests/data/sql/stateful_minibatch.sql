-- GROUP BY with mini-batch (table.exec.mini-batch.*): the rows of stateful_agg_retract.sql in
-- batches of 4 (allow-latency never passes here): each batch emits one change per group it
-- touched, from the group's result before the batch to after it, and nothing for a group whose
-- result is back where it was; the final table is stateful_agg_retract.sql's
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 h';
SET 'table.exec.mini-batch.size' = '4';
CREATE TABLE t (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, a, 9]; +I[3, a, 9]; +I[4, null, null]; +I[5, null, -7]; -D[2, a, 9]; -D[3, a, 9]; +I[6, b, -4]; -U[5, null, -7]; +U[5, null, -3]; -D[1, a, 5]; +I[7, a, null]; +I[8, b, -3]');
CREATE TABLE out (g STRING, n BIGINT, nx BIGINT, nd BIGINT, s INT, a INT, mn INT, mx INT) WITH ('connector' = 'print');
INSERT INTO out SELECT g, COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY g;
-- the same into a materialized sink: the final table, as without mini-batch
CREATE TABLE fin (g STRING, n BIGINT, nx BIGINT, nd BIGINT, s INT, a INT, mn INT, mx INT) WITH ('connector' = 'values', 'sink.materialize' = 'true');
INSERT INTO fin SELECT g, COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY g;
-- batches of 2 over groups the state has: a deleted and re-inserted with other values in one
-- batch is one update; c inserted and deleted in one batch emits nothing; b's delete is one
SET 'table.exec.mini-batch.size' = '2';
CREATE TABLE u (id INT NOT NULL, g STRING, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 1]; +I[2, b, 2]; -D[1, a, 1]; +I[3, a, 7]; +I[4, c, 4]; -D[4, c, 4]; -D[2, b, 2]');
INSERT INTO out SELECT g, COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM(x), AVG(x), MIN(x), MAX(x) FROM u GROUP BY g;
