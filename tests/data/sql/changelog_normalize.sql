-- an upsert source (no UPDATE_BEFORE) into a sink that wants full updates: ChangelogNormalize
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UA,D',
    'data' = '+I[1, a]; +U[1, b]; +U[1, b]; +U[2, x]; -D[1, null]; -D[9, null]; +U[1, c]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
