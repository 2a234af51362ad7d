-- JSON_OBJECT of a ROW value is refused at plan time, naming the function and the type
CREATE TABLE o (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT JSON_OBJECT('r' VALUE ROW(id, tags)) FROM o;
