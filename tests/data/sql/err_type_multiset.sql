CREATE TABLE t (id INT, tags STRING MULTISET) WITH ('connector' = 'values');
