CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'values');
CREATE TABLE t WITH ('connector' = 'print') AS SELECT nope FROM gen;
