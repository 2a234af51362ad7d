CREATE TABLE src (id INT NOT NULL, name STRING) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UA,D', 'data' = '+I[1, a]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
