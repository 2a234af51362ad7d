-- a regular LEFT JOIN of two CDC tables: the plan (the rows of two sources interleave: tests/integration/stateful_join.sh)
CREATE TABLE orders (order_id INT NOT NULL, product_id INT, qty INT, PRIMARY KEY (order_id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, 10, 2]; +I[2, 20, 1]; +I[3, 99, 5]; -U[1, 10, 2]; +U[1, 20, 3]; -D[2, 20, 1]');
CREATE TABLE products (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[10, apple]; +I[20, pear]; -U[20, pear]; +U[20, peach]');
CREATE TABLE out (order_id INT, name STRING, qty INT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT o.order_id, p.name, o.qty FROM orders AS o LEFT JOIN products AS p ON o.product_id = p.id;
