-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/joins/ (Joins, OUTER Equi-JOIN)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, productId INT, product_id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE Product (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT *
FROM Orders
LEFT JOIN Product
ON Orders.product_id = Product.id
