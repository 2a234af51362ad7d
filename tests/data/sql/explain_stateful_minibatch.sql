-- EXPLAIN with mini-batch: each GroupAggregate over a MiniBatchAssigner (Flink's node that cuts
-- the input into batches; its interval is table.exec.mini-batch.allow-latency), here an
-- aggregate of an aggregate; the join under them takes its changes one at a time
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '2 s';
SET 'table.exec.mini-batch.size' = '5000';
CREATE TABLE o (id INT NOT NULL, customer STRING, pid INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, x, 1]');
CREATE TABLE p (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, n]');
CREATE TABLE out (n BIGINT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT n, COUNT(*) FROM (SELECT o.customer, COUNT(p.name) AS n FROM o JOIN p ON o.pid = p.id GROUP BY o.customer) GROUP BY n;
