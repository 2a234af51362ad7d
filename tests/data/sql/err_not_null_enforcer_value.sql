SET table.exec.sink.not-null-enforcer = IGNORE;
CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE TABLE out (id INT NOT NULL) WITH ('connector' = 'values');
INSERT INTO out SELECT id FROM src;
