-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/set-ops/ (Set Operations, EXISTS)
-- doc-error: "WHERE product EXISTS (" is not SQL (EXISTS takes no left operand): Flink refuses it too.
-- added: tables the snippet uses
CREATE TABLE Orders (`user` STRING, amount INT, product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE NewProducts (product STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT user, amount
FROM Orders
WHERE product EXISTS (
    SELECT product FROM NewProducts
)
