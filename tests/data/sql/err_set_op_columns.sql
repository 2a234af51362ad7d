-- the operands of INTERSECT have different numbers of columns
CREATE TABLE a (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
SELECT id, name FROM a INTERSECT SELECT id FROM a;
