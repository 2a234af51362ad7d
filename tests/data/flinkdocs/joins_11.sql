-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/joins/ (Joins, Table Function INNER JOIN)
-- added: tables the snippet uses (table_func is a user-defined table function the page assumes)
CREATE TABLE Orders (order_id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT order_id, res
FROM Orders,
LATERAL TABLE(table_func(order_id)) t(res)
