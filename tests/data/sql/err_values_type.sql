CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out VALUES (1, 'a'), ('two', 'b');
