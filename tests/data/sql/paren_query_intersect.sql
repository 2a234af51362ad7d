-- INTERSECT of two queries in parentheses (as Flink's pages write set operations)
create view t1(s) as values ('c'), ('a');
create view both_t1 as (SELECT s FROM t1) INTERSECT (SELECT s FROM t1);
-- (the rows materialized: the two scans of t1 interleave in any order)
CREATE TABLE out (s STRING) WITH ('connector' = 'values', 'sink.materialize' = 'true');
INSERT INTO out SELECT * FROM both_t1;
