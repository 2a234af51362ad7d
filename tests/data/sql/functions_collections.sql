-- CARDINALITY, ELEMENT and element access on ARRAY (1-based), MAP (by key) and ROW (by field),
-- with empty, NULL and out-of-range cases (the data: unnest_data/orders)
CREATE TABLE o (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>,
  items ARRAY<ROW<sku STRING, qty INT>>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, CARDINALITY(tags) AS nt, tags[1] AS t1, tags[2] AS t2, tags[3] AS t3, tags[0] AS t0,
  CARDINALITY(m) AS nm, m['x'] AS mx, m['z'] AS mz, m['nope'] AS mn,
  CARDINALITY(items) AS ni, items[2].sku AS sku2, items[2].qty AS qty2, items[1].sku AS sku1
FROM o;
-- ELEMENT: the only element, NULL for an empty or NULL array
SELECT id, ELEMENT(tags) AS e FROM o WHERE CARDINALITY(tags) < 2 OR tags IS NULL;
-- EXPLAIN prints field access after a subscript as written
EXPLAIN SELECT items[1].sku, items[CARDINALITY(items)].qty + 1 AS q FROM o WHERE items[1].sku IS NOT NULL;
