-- a read-only metadata column (kafka "offset") that is not VIRTUAL cannot be written: Flink's
-- error, at the INSERT's table
CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE TABLE out (id INT, `offset` BIGINT METADATA) WITH (
    'connector' = 'kafka', 'topic' = 't', 'format' = 'json',
    'properties.bootstrap.servers' = '127.0.0.1:1');
INSERT INTO out SELECT id, CAST(7 AS BIGINT) FROM src;
