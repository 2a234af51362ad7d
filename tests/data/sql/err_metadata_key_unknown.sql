-- a metadata key the connector does not offer: refused at plan time, listing the keys, with
-- where the table is declared and where the query reads it
CREATE TABLE src (id INT, k STRING METADATA FROM 'no-such-key') WITH (
    'connector' = 'kafka', 'topic' = 't', 'format' = 'json',
    'properties.bootstrap.servers' = '127.0.0.1:1');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, k FROM src;
