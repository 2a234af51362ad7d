SELECT a FROM (VALUES (1, 2)) AS t (a);
