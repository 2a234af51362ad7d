-- INTERSECT of two queries in parentheses (as Flink's pages write set operations)
create view t1(s) as values ('c'), ('a');
(SELECT s FROM t1) INTERSECT (SELECT s FROM t1);
