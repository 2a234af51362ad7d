-- FOR SYSTEM_TIME AS OF must name the probe table's processing-time attribute
CREATE TABLE a (id INT, k INT, ts TIMESTAMP(3)) WITH ('connector' = 'values', 'data' = '+I[1, 1, null]');
CREATE TABLE b (k INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]');
SELECT a.id, d.name FROM a JOIN b FOR SYSTEM_TIME AS OF a.ts AS d ON a.k = d.k;
