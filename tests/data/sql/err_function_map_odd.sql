-- MAP[...] with an odd number of arguments is refused at plan time, saying how to write it
CREATE TABLE src (id INT) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT MAP['k', id, 'j'] FROM src;
