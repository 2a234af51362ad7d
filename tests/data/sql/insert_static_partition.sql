-- INSERT ... PARTITION (k = 'v'): the static partition columns take their values from the
-- PARTITION clause and are left out of the SELECT (also mixed with a dynamic one), as in Flink.
CREATE TABLE src (id INT NOT NULL, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[2, b]');
CREATE TABLE out (id INT NOT NULL, name STRING, dt STRING, hr INT) PARTITIONED BY (dt, hr) WITH ('connector' = 'values');
INSERT INTO out PARTITION (dt = '2024-01-01', hr = 7) SELECT id, name FROM src;
INSERT INTO out PARTITION (dt = '2024-01-02') SELECT id, name, id + 10 FROM src;
