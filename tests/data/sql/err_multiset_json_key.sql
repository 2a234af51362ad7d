-- the json format keeps a MULTISET as an object: its elements are the keys, so scalars only
CREATE TABLE b (id INT, tags MULTISET<ARRAY<STRING>>)
WITH ('connector' = 'filesystem', 'path' = 'multiset_data/bags', 'format' = 'json');
SELECT * FROM b;
