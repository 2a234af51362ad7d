-- The Quick start demo: a bounded datagen source printed to the console.
-- Run it with: build/cdcflow run schemas/demo.sql

CREATE TABLE orders (
    order_id BIGINT NOT NULL,
    customer STRING,
    amount   DECIMAL(10, 2),
    quantity INT,
    PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'seed' = '42',
    'fields.order_id.kind' = 'sequence',
    'fields.order_id.start' = '1001',
    'fields.order_id.end' = '1010',
    'fields.customer.length' = '8',
    'fields.amount.min' = '1',
    'fields.amount.max' = '500',
    'fields.quantity.min' = '1',
    'fields.quantity.max' = '20'
);

CREATE TABLE console (
    order_id BIGINT NOT NULL,
    customer STRING,
    amount   DECIMAL(10, 2),
    quantity INT
) WITH (
    'connector' = 'print',
    'print-identifier' = 'orders'
);

INSERT INTO console SELECT * FROM orders;
