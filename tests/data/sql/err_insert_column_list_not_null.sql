CREATE TABLE src (id INT NOT NULL, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT NOT NULL, note STRING, name STRING) WITH ('connector' = 'values');
INSERT INTO out (name) SELECT name FROM src;
