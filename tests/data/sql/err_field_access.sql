-- a field of an array element that is not a ROW, or a field the ROW lacks: refused at plan time
CREATE TABLE o (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>,
  items ARRAY<ROW<sku STRING, qty INT>>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT items[1].price FROM o;
