-- CARDINALITY of a value that is neither an ARRAY nor a MAP is refused at plan time
CREATE TABLE src (s STRING) WITH ('connector' = 'values', 'data' = '+I[a]');
SELECT CARDINALITY(s) FROM src;
