-- ALTER TABLE ... DROP PRIMARY KEY of a table without one (Flink: The base table does not define any primary key)
CREATE TABLE t (id INT NOT NULL, n INT) WITH ('connector' = 'values');
ALTER TABLE t DROP PRIMARY KEY;
