-- the columns of a bare UNION ALL's branches need a common type
CREATE TABLE d1 (v DECIMAL(5, 2)) WITH ('connector' = 'values', 'data' = '+I[1.50]');
CREATE TABLE d2 (s STRING) WITH ('connector' = 'values', 'data' = '+I[x]');
SELECT v FROM d1
UNION ALL SELECT s FROM d2;
