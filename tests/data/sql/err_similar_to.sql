-- SIMILAR TO is refused by name, with what to use instead
CREATE TABLE t (s STRING) WITH ('connector' = 'values', 'data' = '+I[a]');
SELECT s FROM t WHERE s NOT SIMILAR TO '(a|b)%';
