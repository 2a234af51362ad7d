-- a bare UNION ALL prints the branches' common types: DECIMAL(5, 2) and DECIMAL(10, 3) give
-- DECIMAL(10, 3), the first branch cast to it (the rows: tests/integration/union_all.sh)
CREATE TABLE d1 (v DECIMAL(5, 2), n INT) WITH ('connector' = 'values', 'data' = '+I[1.50, 1]');
CREATE TABLE d2 (v DECIMAL(10, 3), n BIGINT) WITH ('connector' = 'values', 'data' = '+I[2.125, 2]');
EXPLAIN SELECT v, n FROM d1 UNION ALL SELECT v, n FROM d2;
