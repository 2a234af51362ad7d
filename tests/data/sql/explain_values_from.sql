-- VALUES in FROM with a column list: a UNION ALL of constant rows, renamed
EXPLAIN SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1))  AS t (order_id, price);
