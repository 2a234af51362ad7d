-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/set-ops/ (Set Operations)
-- changed: the "Flink SQL>" prompt and the printed result are left out.
create view t1(s) as values ('c'), ('a'), ('b'), ('b'), ('c');
create view t2(s) as values ('d'), ('e'), ('a'), ('b'), ('b');

(SELECT s FROM t1) UNION (SELECT s FROM t2);
