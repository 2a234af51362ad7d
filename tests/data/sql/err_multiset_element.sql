-- ELEMENT takes an ARRAY only, not a MULTISET
CREATE TABLE b (id INT, tags MULTISET<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'multiset_data/bags', 'format' = 'json');
SELECT ELEMENT(tags) FROM b;
