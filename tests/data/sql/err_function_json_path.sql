-- a constant JSON path that does not parse is refused at plan time
CREATE TABLE src (doc STRING) WITH ('connector' = 'values', 'data' = '+I[''{}'']');
CREATE TABLE out (v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT JSON_VALUE(doc, '$.a[*]') FROM src;
