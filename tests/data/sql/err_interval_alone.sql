-- an INTERVAL outside datetime +/- INTERVAL is refused with what to do
CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE TABLE out (s STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT CAST(INTERVAL '1' DAY AS STRING) FROM src;
