-- a LIMIT inside one branch of UNION ALL is refused by name
(SELECT 1 AS n FROM (SELECT 2 AS m) LIMIT 1) UNION ALL (SELECT 3);
