-- a constant pattern letter the formatter does not know is refused at plan time
CREATE TABLE src (ts TIMESTAMP(3)) WITH ('connector' = 'values', 'data' = '+I[2024-01-01 00:00:00]');
CREATE TABLE out (s STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm z') FROM src;
