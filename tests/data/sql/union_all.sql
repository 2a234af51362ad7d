-- UNION ALL: EXPLAIN shows one plan per branch under a Union node (the rows: union_all.sh)
CREATE TABLE a (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]');
CREATE TABLE b (k BIGINT, label STRING) WITH (
    'connector' = 'values', 'data' = '+I[10, x]; +I[1, a]');
CREATE TABLE c (n SMALLINT, s STRING) WITH ('connector' = 'values', 'data' = '+I[7, z]');
CREATE TABLE out (id BIGINT, name STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT id, name FROM a UNION ALL SELECT k, label FROM b WHERE k > 5;
EXPLAIN INSERT INTO out SELECT id, name FROM a WHERE id = 1 UNION ALL SELECT k, label FROM b
    UNION ALL SELECT n, s FROM c;
EXPLAIN SELECT id AS ident, name FROM a UNION ALL SELECT k, label FROM b;
EXPLAIN INSERT INTO out
    WITH u AS (SELECT id, name FROM a UNION ALL SELECT k, label FROM b)
    SELECT id, name FROM u WHERE id < 5;
-- the rows of several branches interleave (one pipe each): tests/integration/union_all.sh runs
-- them; one branch with rows here shows the changelog passes as it is
INSERT INTO out SELECT id, name FROM a UNION ALL SELECT k, label FROM b WHERE k > 100;
-- in a view (its stored query keeps the branches), read whole under a filter
CREATE VIEW v AS SELECT id AS x, name FROM a UNION ALL SELECT k, label FROM b;
EXPLAIN SELECT x FROM v WHERE x > 0;
