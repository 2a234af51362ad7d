CREATE TABLE t (
  id INT,
  r ROW<a INT, b STRING, c ROW<x DOUBLE, y BOOLEAN>>,
  other STRING
) WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'seed' = '7');
CREATE TABLE out (id INT, a INT, y BOOLEAN) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT id, r.a, r.c.y FROM t;
