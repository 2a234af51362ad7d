-- INSERT INTO t (cols) SELECT ...: the columns the list leaves out are NULL, as in Flink.
CREATE TABLE src (id INT NOT NULL, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[2, b]');
CREATE TABLE out (id INT NOT NULL, note STRING, name STRING) WITH ('connector' = 'values');
INSERT INTO out (name, id) SELECT name, id FROM src;
