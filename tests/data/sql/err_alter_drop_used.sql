CREATE TABLE t (id INT NOT NULL, n INT, twice AS n * 2) WITH ('connector' = 'values');
ALTER TABLE t DROP n;
