-- CREATE TABLE ... AS SELECT: the table takes the query's columns, then gets its rows
CREATE TABLE gen (id INT NOT NULL, name STRING, price DECIMAL(10, 2))
WITH ('connector' = 'values', 'data' = '+I[1, a, 1.50]; +I[2, b, 2.00]; +I[3, c, 9.99]');
CREATE TABLE cheap WITH ('connector' = 'print', 'print-identifier' = 'cheap') AS
SELECT id, UPPER(name) AS label, price * 2 AS twice FROM gen WHERE price < 5;
SHOW CREATE TABLE cheap;
-- IF NOT EXISTS with the table there: the rows go into it
CREATE TABLE IF NOT EXISTS cheap WITH ('connector' = 'blackhole') AS
SELECT id, name, price FROM gen WHERE id = 3;
-- from VALUES-free constants
CREATE TABLE one WITH ('connector' = 'print') AS SELECT 7 AS n, 'x' AS s;
