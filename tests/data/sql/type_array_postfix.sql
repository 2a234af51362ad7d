-- Flink's postfix array syntax: INT ARRAY is ARRAY<INT> (also nested and inside ROW)
CREATE TABLE t (a INT ARRAY, b STRING ARRAY ARRAY NOT NULL, r ROW<x BIGINT ARRAY>)
WITH ('connector' = 'values');
SHOW CREATE TABLE t;
