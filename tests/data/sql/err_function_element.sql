-- ELEMENT of an array with more than one element fails the row, naming the function and the row
CREATE TABLE o (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>,
  items ARRAY<ROW<sku STRING, qty INT>>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, ELEMENT(tags) AS e FROM o;
