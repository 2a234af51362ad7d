-- UNNEST joined as Flink's Joins page has it (Array, Multiset and Map Expansion): CROSS JOIN,
-- LEFT JOIN ... ON TRUE, a comma, WITH ORDINALITY; ARRAY (of ROWs: their fields), MAP (key,
-- value); NULL and empty arrays give no row, or one with NULLs under a LEFT JOIN
CREATE TABLE o (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>,
  items ARRAY<ROW<sku STRING, qty INT>>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, tag FROM o CROSS JOIN UNNEST(tags) AS t (tag);
SELECT o.id, t.tag, t.pos FROM o LEFT JOIN UNNEST(o.tags) WITH ORDINALITY AS t (tag, pos) ON TRUE;
SELECT id, k, v FROM o, UNNEST(m) AS t (k, v) WHERE v > 1 OR v IS NULL;
-- without a column list: the element's name EXPR$0; a MAP's f0, f1; ORDINALITY
SELECT * FROM o CROSS JOIN UNNEST(tags);
SELECT id, f0, f1, ORDINALITY FROM o CROSS JOIN UNNEST(m) WITH ORDINALITY;
-- an ARRAY of ROWs gives the ROW's fields; JOIN ... ON filters the joined rows
SELECT id, sku, qty FROM o JOIN UNNEST(items) AS i ON qty > 1;
SELECT id, i.sku FROM o LEFT JOIN UNNEST(items) AS i ON TRUE;
-- in a view: stored with the UNNEST as written
CREATE VIEW v AS SELECT id, tag, pos FROM o CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t (tag, pos);
SHOW CREATE VIEW v;
SELECT tag, pos FROM v WHERE id = 1;
-- under GROUP BY: the UNNEST in a subquery (a leaf of the stateful query)
SELECT tag, COUNT(*) AS n FROM (SELECT tag FROM o CROSS JOIN UNNEST(tags) AS t (tag)) GROUP BY tag;
