-- ALTER TABLE ... AFTER a column the table does not have (Flink: Referenced column by 'AFTER' does not exist)
CREATE TABLE t (id INT NOT NULL, n INT) WITH ('connector' = 'values');
ALTER TABLE t ADD (k INT FIRST, m STRING AFTER nn);
