-- a JSON_VALUE clause other than the defaults is refused by name, not silently ignored
CREATE TABLE src (doc STRING) WITH ('connector' = 'values', 'data' = '+I[''{}'']');
CREATE TABLE out (v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT JSON_VALUE(doc, '$.a' DEFAULT 'x' ON EMPTY) FROM src;
