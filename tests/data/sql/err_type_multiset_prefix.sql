CREATE TABLE t (id INT, tags MULTISET<STRING>) WITH ('connector' = 'values');
