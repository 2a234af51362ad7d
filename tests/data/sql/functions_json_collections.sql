-- JSON_OBJECT and JSON_ARRAY of ARRAY and MAP values (as Flink's docs:
-- JSON_OBJECT(KEY 'K' VALUE ARRAY[MAP['K1', 1, 'K2', 2]]) is {"K":[{"K1":1,"K2":2}]}), with empty,
-- NULL and NULL-element cases (the data: unnest_data/orders)
CREATE TABLE o (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, JSON_OBJECT('tags' VALUE tags, 'm' VALUE m), JSON_ARRAY(tags, ARRAY[1, 2] ABSENT ON NULL),
  JSON_OBJECT(KEY 'K' VALUE ARRAY[MAP['K1', 1, 'K2', 2]]), JSON_ARRAY(MAP[1, DATE '2024-01-02']) FROM o;
