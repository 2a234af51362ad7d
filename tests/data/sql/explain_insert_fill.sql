CREATE TABLE src (id INT NOT NULL, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (id INT NOT NULL, note STRING, name STRING, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'values');
INSERT INTO out PARTITION (dt = '2024-01-01') (name, id) SELECT name, id FROM src;
