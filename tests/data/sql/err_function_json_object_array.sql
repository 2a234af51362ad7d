-- JSON_OBJECT of an ARRAY value is refused at plan time, naming the function and the type
CREATE TABLE o (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT JSON_OBJECT('tags' VALUE tags) FROM o;
