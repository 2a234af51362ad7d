-- Flink's value constructors ARRAY[...], MAP[...], ROW(...) / (a, b): types as Flink derives
-- them (the elements' common type, NOT NULL), NULL elements, nesting, subscripts on them, and
-- in a view (its stored query prints them as written)
CREATE TABLE src (id INT NOT NULL, s STRING, n BIGINT) WITH (
    'connector' = 'values', 'data' = '+I[1, a, 10]; +I[2, null, null]');
SELECT id, ARRAY[id, 2, 3] AS arr, ARRAY[s, 'lit'] AS strs, MAP['k', n, 'id', id] AS m,
  ROW(id, s) AS r, (s, n) AS r2, ARRAY[ARRAY[1], ARRAY[2, 3]] AS nested,
  ARRAY[1.5, id][2] AS second, MAP[s, id][s] AS by_key, CARDINALITY(MAP[1, 'x', 2, 'y']) AS c
FROM src;
CREATE TABLE typed WITH ('connector' = 'blackhole') AS
  SELECT ARRAY[id, 2] AS arr, MAP['k', n] AS m, ROW(id, s) AS r FROM src;
SHOW CREATE TABLE typed;
CREATE VIEW v AS SELECT ARRAY[id, 2] AS arr, MAP['k', id] AS m FROM src;
SHOW CREATE VIEW v;
SELECT arr[2], m['k'] FROM v;
