-- SELECT without FROM: one row of constants
SELECT 1, 'x', 1 + 2 AS three, CAST('2024-01-02' AS DATE) AS d;
-- a view without FROM, read with a filter
CREATE VIEW one AS SELECT 42 AS answer, 'life' AS topic;
SELECT topic FROM one WHERE answer = 42;
EXPLAIN SELECT 1 AS a;
