-- Every kind of DDL the mysql-binlog format detects, with rows between them
-- (tests/integration/mysql_cdc_schema_detect.sh; the output is schema_ddl.gold).
CREATE TABLE t (id INT NOT NULL PRIMARY KEY, name VARCHAR(10), n INT);
INSERT INTO t VALUES (1, 'a', 10);
ALTER TABLE t ADD COLUMN score INT NOT NULL DEFAULT 5;
ALTER TABLE `cdcflow`.`t` ADD COLUMN (note TEXT, flag TINYINT) /* a comment */;
INSERT INTO t VALUES (2, 'b', 20, 6, 'x', 1);
ALTER TABLE t DROP COLUMN flag;
ALTER TABLE t RENAME COLUMN note TO remark;
INSERT INTO t VALUES (3, 'c', 30, 7, 'y');
ALTER TABLE t CHANGE COLUMN remark comment_text VARCHAR(50) NULL;
ALTER TABLE t MODIFY n BIGINT;
ALTER TABLE t MODIFY COLUMN name VARCHAR(100);
INSERT INTO t VALUES (4, 'dddddddddddddddd', 40000000000, 8, 'z');
ALTER TABLE t MODIFY name TEXT, ADD INDEX i_score (score);
ALTER TABLE t MODIFY score INT NULL;
ALTER TABLE t ALTER COLUMN score SET DEFAULT 9;
ALTER TABLE t ADD COLUMN first_col INT FIRST, ADD COLUMN mid INT AFTER id;
INSERT INTO t (id, name) VALUES (5, 'e');
ALTER TABLE t ENGINE=InnoDB;
# a clause this reader does not know: the TABLE_MAP that follows is the truth
ALTER TABLE t ADD COLUMN w INT, ADD COLUMN addr INET6;
INSERT INTO t (id, name, w) VALUES (6, 'f', 66);
TRUNCATE TABLE t;
INSERT INTO t (id) VALUES (7);
CREATE TABLE u (a INT, b VARCHAR(5) NOT NULL DEFAULT 'q');
INSERT INTO u VALUES (1, 'x');
RENAME TABLE u TO u2;
DROP TABLE IF EXISTS u2, t;
