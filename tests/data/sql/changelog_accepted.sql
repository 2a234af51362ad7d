-- a full changelog into a sink that takes every kind: nothing added
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
