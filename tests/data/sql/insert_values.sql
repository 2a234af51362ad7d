-- INSERT ... VALUES: each row once, in order; the column types follow the widest value
CREATE TABLE out (id INT NOT NULL, name STRING, price DECIMAL(12, 2)) WITH ('connector' = 'print');
INSERT INTO out VALUES (1, 'scooter', 3.14), (2, 'car battery', 8.1), (3, NULL, 10);
INSERT INTO out VALUES (4, UPPER('one row'), CAST(NULL AS DECIMAL(12, 2)));
-- with a column list: the others are NULL
INSERT INTO out (id, name) VALUES (5, 'x');
