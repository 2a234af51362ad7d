-- Flink statements cdcflow does not run are refused by name, with what to do instead
CREATE TABLE t (a INT) WITH ('connector' = 'values', 'data' = '+I[1]');
SHOW JOBS;
