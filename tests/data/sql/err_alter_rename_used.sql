-- ALTER TABLE ... RENAME of a column a computed column reads (Flink refuses it)
CREATE TABLE t (id INT NOT NULL, n INT, twice AS n * 2) WITH ('connector' = 'values');
ALTER TABLE t RENAME n TO m;
