CREATE TABLE t (id INT NOT NULL) WITH ('connector' = 'values');
ALTER TABLE t RESET ('connector');
