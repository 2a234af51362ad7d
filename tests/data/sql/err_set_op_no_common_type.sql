-- EXCEPT of an INT and a BOOLEAN column: no common type
CREATE TABLE a (id INT, ok BOOLEAN) WITH ('connector' = 'values', 'data' = '+I[1, true]');
SELECT id FROM a EXCEPT SELECT ok FROM a;
