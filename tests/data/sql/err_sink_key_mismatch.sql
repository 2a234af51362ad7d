CREATE TABLE src (id INT NOT NULL, name STRING NOT NULL, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D', 'data' = '+I[1, a]');
CREATE TABLE out (name STRING NOT NULL, id INT NOT NULL, PRIMARY KEY (name) NOT ENFORCED) WITH (
    'connector' = 'values', 'sink-changelog-mode-enforced' = 'I,UA,D');
INSERT INTO out SELECT name, id FROM src;
