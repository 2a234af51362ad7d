-- a metadata column read through the source's metadata ability
CREATE TABLE src (id INT NOT NULL, tag STRING METADATA FROM 'k' VIRTUAL) WITH (
    'connector' = 'values', 'readable-metadata' = 'k:STRING',
    'data' = '+I[1]; +I[2]', 'metadata-data' = '[one]; [two]');
CREATE TABLE out (id INT NOT NULL, tag STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
