-- FROM_BASE64 of text that is not base64 fails the row with where and what
CREATE TABLE src (s STRING) WITH ('connector' = 'values', 'data' = '+I[''not base64!'']');
CREATE TABLE out (s STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT FROM_BASE64(s) FROM src;
