-- VALUES in FROM with the column list Flink's SELECT page uses: (VALUES ...) AS t (c1, c2)
SELECT order_id, price * 2 FROM (VALUES (1, 2.0)) AS t (order_id, price);
SELECT s FROM (SELECT 'x', 1) AS u (s, n) WHERE n = 1;
