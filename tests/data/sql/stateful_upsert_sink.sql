-- stateful results into sinks keyed by the result's unique key (regress: such sinks were
-- refused, "the primary key of table sink ... does not match the key of the changes"): the
-- group keys of a GROUP BY, (partition, rn) of Top-N, the partition of a deduplication (rn = 1)
CREATE TABLE t (id INT NOT NULL, g STRING NOT NULL, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, a, 9]; +I[3, b, 1]; -U[2, a, 9]; +U[2, a, 2]; -D[3, b, 1]; +I[4, c, 8]; +I[5, c, 3]');
CREATE TABLE agg (g STRING NOT NULL, n BIGINT, mx INT, PRIMARY KEY (g) NOT ENFORCED) WITH (
  'connector' = 'values', 'sink.materialize' = 'true');
EXPLAIN INSERT INTO agg SELECT g, COUNT(*), MAX(x) FROM t GROUP BY g;
INSERT INTO agg SELECT g, COUNT(*), MAX(x) FROM t GROUP BY g;
CREATE TABLE top2 (g STRING NOT NULL, rn BIGINT NOT NULL, id INT, x INT, PRIMARY KEY (g, rn) NOT ENFORCED) WITH (
  'connector' = 'values', 'sink.materialize' = 'true');
INSERT INTO top2 SELECT g, rn, id, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC) AS rn FROM t) WHERE rn <= 2;
CREATE TABLE first1 (g STRING NOT NULL, id INT, x INT, PRIMARY KEY (g) NOT ENFORCED) WITH (
  'connector' = 'values', 'sink.materialize' = 'true');
EXPLAIN INSERT INTO first1 SELECT g, id, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC) AS rn FROM t) WHERE rn = 1;
INSERT INTO first1 SELECT g, id, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY x DESC) AS rn FROM t) WHERE rn = 1;
