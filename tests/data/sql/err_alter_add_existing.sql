CREATE TABLE t (id INT NOT NULL, n INT) WITH ('connector' = 'values');
ALTER TABLE t ADD n BIGINT;
