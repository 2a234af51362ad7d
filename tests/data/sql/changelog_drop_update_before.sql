-- a full changelog into an upsert sink keyed the same way: DropUpdateBefore
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a]; +I[2, b]; -U[1, a]; +U[1, aa]; -D[2, b]; +I[3, c]');
CREATE TABLE out (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'sink-changelog-mode-enforced' = 'I,UA,D', 'sink.materialize' = 'true');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
