-- the operands of a set operator in the common type of each column (INT and BIGINT: BIGINT),
-- named as the left operand's columns; several columns compare together, NULL equal to NULL
CREATE TABLE a (id INT NOT NULL, x INT, y STRING) WITH (
  'connector' = 'values', 'data' = '+I[1, 1, p]; +I[2, null, q]; +I[3, 3, null]; +I[4, 3, null]');
CREATE TABLE b (id INT NOT NULL, x BIGINT, z STRING) WITH (
  'connector' = 'values', 'data' = '+I[1, 1, p]; +I[2, null, q]; +I[3, 3, r]; +I[4, 3, null]');
-- (each job's rows materialized: the interleaving of the two sources' changes varies)
CREATE TABLE out (x BIGINT, y STRING) WITH ('connector' = 'values', 'sink.materialize' = 'true');
EXPLAIN SELECT x, y FROM a INTERSECT ALL SELECT x, z FROM b;
INSERT INTO out SELECT x, y FROM a INTERSECT ALL SELECT x, z FROM b;
INSERT INTO out SELECT x, y FROM a EXCEPT ALL SELECT x, z FROM b;
