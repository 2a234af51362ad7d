-- GROUPING SETS, ROLLUP and CUBE (Flink's group aggregation page, Products): an Expand makes
-- each row once per grouping set, its keys outside the set NULL and the set's id $e appended,
-- and the aggregate groups by the keys and $e; a key some set leaves out becomes nullable;
-- GROUPING / GROUPING_ID tell the sets' rows apart (a NULL key of a row vs a key left out)
CREATE TABLE Products (supplier_id STRING NOT NULL, product_id STRING NOT NULL, rating INT) WITH ('connector' = 'values', 'data' =
  '+I[supplier1, product1, 4]; +I[supplier1, product2, 3]; +I[supplier2, product3, 3]; +I[supplier2, product4, 4]; +I[supplier3, product5, null]');
EXPLAIN SELECT supplier_id, rating, COUNT(*) AS total FROM Products GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ());
SELECT supplier_id, rating, COUNT(*) AS total, GROUPING(supplier_id) AS g1, GROUPING_ID(supplier_id, rating) AS g2 FROM Products GROUP BY GROUPING SETS ((supplier_id, rating), (supplier_id), ());
-- ROLLUP (a, b) is GROUPING SETS ((a, b), (a), ()); HAVING on GROUPING keeps the subtotals
EXPLAIN SELECT supplier_id, rating, COUNT(*) FROM Products GROUP BY ROLLUP (supplier_id, rating);
SELECT supplier_id, rating, COUNT(*) FROM Products GROUP BY ROLLUP (supplier_id, rating) HAVING GROUPING(rating) = 1;
-- CUBE: every subset, enclosing sets first; a plain key with sets is in every set
SELECT supplier_id, rating, product_id, COUNT(*) AS n FROM Products WHERE rating IS NOT NULL GROUP BY CUBE (supplier_id, rating, product_id) HAVING GROUPING_ID(supplier_id, rating, product_id) IN (0, 7) OR product_id = 'product1';
SELECT supplier_id, rating, MAX(product_id) AS top FROM Products GROUP BY supplier_id, CUBE (rating);
-- into a sink (the keys are nullable now), and in a view: its text has the sets
CREATE TABLE res (supplier_id STRING, rating INT, total BIGINT NOT NULL) WITH ('connector' = 'print');
INSERT INTO res SELECT supplier_id, rating, COUNT(*) FROM Products WHERE supplier_id <> 'supplier2' GROUP BY GROUPING SETS ((supplier_id), (rating));
CREATE VIEW by_supplier AS SELECT supplier_id, rating, COUNT(*) AS total FROM Products GROUP BY ROLLUP (supplier_id, rating);
SHOW CREATE VIEW by_supplier;
SELECT * FROM by_supplier WHERE supplier_id IS NULL;
