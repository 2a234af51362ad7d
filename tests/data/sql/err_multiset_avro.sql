-- Avro has no MULTISET schema here: refused at plan time
CREATE TABLE c (id INT, tags MULTISET<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'multiset_data/bags', 'format' = 'avro');
SELECT * FROM c;
