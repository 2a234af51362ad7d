-- a constant pattern that does not compile is refused at plan time
CREATE TABLE src (s STRING) WITH ('connector' = 'values', 'data' = '+I[a]');
CREATE TABLE out (s STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT REGEXP_REPLACE(s, 'a(b', 'x') FROM src;
