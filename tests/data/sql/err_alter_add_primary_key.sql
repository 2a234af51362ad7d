-- ALTER TABLE ... ADD of a primary key to a table that has one (Flink: drop it before adding a
-- new one)
CREATE TABLE t (id INT NOT NULL PRIMARY KEY NOT ENFORCED) WITH ('connector'='values');
ALTER TABLE t ADD k INT PRIMARY KEY NOT ENFORCED;
