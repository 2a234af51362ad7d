-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, WATERMARK)
-- added: the SELECT at the end (and a ";" before it where the snippet has none), so that the table is planned
-- changed: "WITH ( . . . )" filled in.
CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3),
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM Orders;
