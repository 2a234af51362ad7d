-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/alter/ (ALTER Statements), SQL CLI
-- changed: the "Flink SQL>" prompts and the printed results are left out; "WITH (...)" filled in;
-- a SELECT added at the end, so that the table is planned.
CREATE TABLE Orders (`user` BIGINT, product STRING, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
ALTER TABLE Orders ADD `order` INT COMMENT 'order identifier' FIRST;
DESCRIBE Orders;
ALTER TABLE Orders ADD (ts TIMESTAMP(3), category STRING AFTER product, PRIMARY KEY(`order`) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR);
DESCRIBE Orders;
ALTER TABLE Orders MODIFY (amount DOUBLE NOT NULL, category STRING COMMENT 'category identifier' AFTER `order`, WATERMARK FOR ts AS ts);
DESCRIBE Orders;
ALTER TABLE Orders DROP WATERMARK;
DESCRIBE Orders;
ALTER TABLE Orders DROP (amount, ts, category);
DESCRIBE Orders;
ALTER TABLE Orders RENAME `order` to `order_id`;
DESCRIBE Orders;
SHOW TABLES;
ALTER TABLE Orders RENAME TO NewOrders;
SHOW TABLES;
SELECT * FROM NewOrders;
