-- MULTISET<t> and t MULTISET (Flink's bag: each distinct element with its count): the json format
-- reads it as an object element -> count, like a MAP; printed as {element=count, ...};
-- CARDINALITY counts the elements with their duplicates (the sum of the counts)
CREATE TABLE b (id INT, tags MULTISET<STRING>, nums INT MULTISET)
WITH ('connector' = 'filesystem', 'path' = 'multiset_data/bags', 'format' = 'json');
DESCRIBE b;
SELECT id, tags, nums, CARDINALITY(tags) AS n, CARDINALITY(nums) AS m FROM b;
-- the type as Flink prints it, NOT NULL forms and nesting included
CREATE TABLE t (a MULTISET<INT NOT NULL> NOT NULL, b STRING MULTISET ARRAY,
  c ROW<x MULTISET<DOUBLE>>) WITH ('connector' = 'values');
SHOW CREATE TABLE t;
-- UNNEST gives each element as many times as its count (Flink's Multiset Expansion)
SELECT id, t FROM b CROSS JOIN UNNEST(tags) AS u (t);
SELECT id, n, pos FROM b CROSS JOIN UNNEST(nums) WITH ORDINALITY AS u (n, pos) WHERE id = 4;
