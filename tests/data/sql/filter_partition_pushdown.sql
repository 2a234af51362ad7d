-- partition pruning, filter pushdown (only filterable fields), projection and statistics
CREATE TABLE src (id INT NOT NULL, name STRING, region STRING, amount INT)
PARTITIONED BY (region) WITH (
    'connector' = 'values', 'filterable-fields' = 'amount',
    'partition-list' = 'region:eu;region:us;region:asia',
    'data' = '+I[1, a, eu, 10]; +I[2, b, us, 20]; +I[3, c, asia, 30]; +I[4, d, eu, 40]');
CREATE TABLE out (id INT NOT NULL, amount INT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT id, amount FROM src WHERE region = 'eu' AND amount > 15 AND name <> 'x';
INSERT INTO out SELECT id, amount FROM src WHERE region = 'eu' AND amount > 15;
