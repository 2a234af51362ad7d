-- duplicated CDC events are removed by ChangelogNormalize when asked
SET 'table.exec.source.cdc-events-duplicate' = 'true';
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[1, a]; -U[1, a]; +U[1, b]; -U[1, a]; +U[1, b]; -D[1, b]; -D[1, b]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
