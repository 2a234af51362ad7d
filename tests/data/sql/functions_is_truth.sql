-- x IS [NOT] TRUE | FALSE | UNKNOWN (Flink's logical functions): never NULL; EXPLAIN shows the
-- SQL they mean (COALESCE(x, FALSE) for IS TRUE)
CREATE TABLE t (a INT, b BOOLEAN) WITH ('connector' = 'values', 'data' = '+I[1, true]; +I[2, false]; +I[3, null]');
SELECT a, b IS TRUE, b IS NOT TRUE, b IS FALSE, b IS NOT FALSE, b IS UNKNOWN, b IS NOT UNKNOWN,
  a > 1 IS TRUE AS gt FROM t;
EXPLAIN SELECT a FROM t WHERE b IS NOT FALSE;
