-- FLIP-64 objects through the binary: databases, temporary shadowing, SHOW, DESCRIBE
CREATE DATABASE shop COMMENT 'the shop';
CREATE TABLE shop.orders (
    id BIGINT NOT NULL,
    amount DECIMAL(10, 2),
    PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'datagen', 'number-of-rows' = '2');
CREATE TEMPORARY TABLE shop.orders (id BIGINT NOT NULL) WITH ('connector' = 'blackhole');
USE shop;
SHOW DATABASES;
SHOW TABLES;
SHOW CURRENT DATABASE;
DESCRIBE orders;
DROP TEMPORARY TABLE orders;
DESCRIBE orders;
SHOW CREATE TABLE orders;
CREATE VIEW v AS SELECT id FROM orders;
SHOW VIEWS;
USE default_database;
SHOW TABLES;
