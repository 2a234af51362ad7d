-- FLOOR of a DATE to HOUR has no meaning: refused at plan time, naming the unit and type
CREATE TABLE src (d DATE) WITH ('connector' = 'values', 'data' = '+I[2024-01-01]');
CREATE TABLE out (d DATE) WITH ('connector' = 'print');
INSERT INTO out SELECT FLOOR(d TO HOUR) FROM src;
