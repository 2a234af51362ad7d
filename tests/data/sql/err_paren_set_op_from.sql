-- a parenthesized FROM item that is not a query is refused at the token, naming what is expected
CREATE TABLE t1 (a STRING) WITH ('connector' = 'values', 'data' = '+I[c]');
SELECT * FROM ((SELECT a FROM t1) INTERSECT (t1));
