-- VALUES as a query (a view's, a statement's) is a UNION ALL of SELECTs without FROM, and the
-- branches of UNION ALL may be written in parentheses, as Flink's Set Operations page does.
create view t1(s) as values ('c'), ('a'), ('b');
create view t2(s) as values ('d'), ('a');
(SELECT s FROM t1) UNION ALL (SELECT s FROM t2);
SELECT 1 AS n UNION ALL SELECT 2;
VALUES (1, 'x'), (2, 'y');
