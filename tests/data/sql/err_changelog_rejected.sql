CREATE TABLE src (id INT NOT NULL, name STRING) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a]');
CREATE TABLE out (id INT NOT NULL, name STRING) WITH (
    'connector' = 'values', 'sink-changelog-mode-enforced' = 'I');
INSERT INTO out SELECT * FROM src;
