-- a format without a mapping for MULTISET refuses the column by its type at plan time
CREATE TABLE c (id INT, tags MULTISET<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'multiset_data/bags', 'format' = 'csv');
SELECT * FROM c;
