-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/create/ (CREATE Statements, LIKE)
-- added: the SELECT at the end (and a ";" before it where the snippet has none), so that the table is planned
-- changed: the Kafka options the page leaves out (topic, servers, format) are added.
CREATE TABLE Orders (
    `user` BIGINT,
    product STRING,
    order_time TIMESTAMP(3)
) WITH ( 
    'connector' = 'kafka',
    'scan.startup.mode' = 'earliest-offset',
    'topic' = 'orders', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json'
);

CREATE TABLE Orders_with_watermark (
    -- Add watermark definition
    WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND 
) WITH (
    -- Overwrite the startup-mode
    'scan.startup.mode' = 'latest-offset'
)
LIKE Orders;
SELECT * FROM Orders_with_watermark;
