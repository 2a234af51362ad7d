-- ARRAY[...] of values without a common type is refused at plan time, naming both types
CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT ARRAY[id, DATE '2024-01-01'] FROM src;
