-- Schema changes between rows (tests/integration/pgoutput_postgres.sh, ddl.gold): pgoutput
-- sends no DDL, only a new Relation message before the next row of a changed table.
CREATE TABLE t_ddl (id int PRIMARY KEY, a int, s varchar(10), n text NOT NULL);
INSERT INTO t_ddl VALUES (1, 1, 'one', 'x');
ALTER TABLE t_ddl ADD COLUMN b int;
INSERT INTO t_ddl VALUES (2, 2, 'two', 'x', 20);
ALTER TABLE t_ddl ADD COLUMN c int DEFAULT 5;
INSERT INTO t_ddl (id, a, s, n) VALUES (3, 3, 'three', 'x');
ALTER TABLE t_ddl DROP COLUMN b;
INSERT INTO t_ddl VALUES (4, 4, 'four', 'x', 40);
ALTER TABLE t_ddl RENAME COLUMN a TO a2;
INSERT INTO t_ddl VALUES (5, 5, 'five', 'x', 50);
ALTER TABLE t_ddl ALTER COLUMN a2 TYPE bigint;
INSERT INTO t_ddl VALUES (6, 5000000000, 'six', 'x', 60);
ALTER TABLE t_ddl ALTER COLUMN s TYPE varchar(100);
INSERT INTO t_ddl VALUES (7, 7, 'seven, longer than ten', 'x', 70);
ALTER TABLE t_ddl ALTER COLUMN s TYPE text;
INSERT INTO t_ddl VALUES (8, 8, 'eight', 'x', 80);
-- NOT NULL -> NULL: pgoutput has no nullability, the Relation message stays the same
ALTER TABLE t_ddl ALTER COLUMN n DROP NOT NULL;
INSERT INTO t_ddl VALUES (9, 9, 'nine', NULL, 90);
-- a DDL inside a transaction, between its rows
BEGIN;
INSERT INTO t_ddl VALUES (10, 10, 'ten', 'x', 100);
ALTER TABLE t_ddl ADD COLUMN d int DEFAULT 7;
INSERT INTO t_ddl VALUES (11, 11, 'eleven', 'x', 110);
COMMIT;
TRUNCATE t_ddl;
