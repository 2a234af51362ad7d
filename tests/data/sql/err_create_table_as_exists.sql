CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'values');
CREATE TABLE gen WITH ('connector' = 'print') AS SELECT id FROM gen;
