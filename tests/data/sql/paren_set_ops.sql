-- set operations on queries in parentheses, as Flink's Set Operations page writes them: in FROM
-- ("FROM ((SELECT ...) INTERSECT (SELECT ...))"), in a join, at top level and in an INSERT
CREATE TABLE t1 (a STRING) WITH ('connector' = 'values', 'data' = '+I[c]; +I[a]; +I[b]; +I[b]');
CREATE TABLE t2 (a STRING) WITH ('connector' = 'values', 'data' = '+I[d]; +I[e]; +I[a]; +I[b]; +I[b]');
-- (the rows materialized: the two scans interleave in any order)
CREATE TABLE out (a STRING) WITH ('connector' = 'values', 'sink.materialize' = 'true');
CREATE TABLE out2 (a STRING, n BIGINT) WITH ('connector' = 'values', 'sink.materialize' = 'true');
INSERT INTO out SELECT * FROM ((SELECT a FROM t1) INTERSECT (SELECT a FROM t2));
INSERT INTO out SELECT a FROM ((SELECT a FROM t1) EXCEPT (SELECT a FROM t2)) AS e;
INSERT INTO out (SELECT a FROM t1) UNION (SELECT a FROM t2);
INSERT INTO out (SELECT a FROM t1) INTERSECT ALL (SELECT a FROM t2);
INSERT INTO out2 SELECT u.a, COUNT(*) FROM ((SELECT a FROM t1) UNION ALL (SELECT a FROM t2)) u
  JOIN ((SELECT a FROM t1) EXCEPT ALL (SELECT a FROM t2)) x ON u.a = x.a GROUP BY u.a;
EXPLAIN (SELECT a FROM t1) UNION (SELECT a FROM t2);
EXPLAIN SELECT * FROM ((SELECT a FROM t1) INTERSECT (SELECT a FROM t2));
