-- CAST of temporal values to STRING follows Flink: a space between date and time, the type's
-- fraction digits, TIMESTAMP_LTZ in the session time zone (UTC) without 'Z'. The print sink
-- keeps its own ISO-8601 format for the values themselves.
CREATE TABLE a (ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), t TIME, d DATE, ts6 TIMESTAMP(6)) WITH ('connector' = 'values', 'data' = '+I[2024-03-05T10:20:30.123, 2024-03-05T10:20:30.1Z, 10:20:30, 2024-03-05, 2024-03-05T10:20:30.123456]');
SELECT CAST(ts AS STRING), CAST(ltz AS STRING), CAST(t AS STRING), CAST(d AS STRING), CAST(ts6 AS VARCHAR(40)), ts, ltz FROM a;
