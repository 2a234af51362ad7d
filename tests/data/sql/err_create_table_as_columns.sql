CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'values');
CREATE TABLE t (id INT) WITH ('connector' = 'print') AS SELECT id FROM gen;
