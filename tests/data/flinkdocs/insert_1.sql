-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/insert/ (INSERT Statement, SQL CLI)
-- changed: the "Flink SQL>" prompt and the printed result are left out.
-- changed: "WITH (...)" filled in.
CREATE TABLE Orders (`user` BIGINT, product STRING, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE RubberOrders(product STRING, amount INT) WITH ('connector' = 'print');
INSERT INTO RubberOrders SELECT product, amount FROM Orders WHERE product LIKE '%Rubber%';
