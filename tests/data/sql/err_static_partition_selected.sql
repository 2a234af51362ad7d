CREATE TABLE src (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE TABLE out (id INT NOT NULL, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'values');
INSERT INTO out PARTITION (dt = '2024-01-01') SELECT id, '2024-01-01' FROM src;
