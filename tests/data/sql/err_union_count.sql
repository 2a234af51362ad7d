-- the branches of UNION ALL have as many columns
CREATE TABLE a (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, name FROM a
    UNION ALL SELECT id FROM a;
