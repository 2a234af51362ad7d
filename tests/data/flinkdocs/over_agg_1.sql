-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/over-agg/ (Over Aggregation)
-- added: tables the snippet uses
CREATE TABLE Orders (order_id INT, product STRING, amount INT, order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT order_id, order_time, amount,
  SUM(amount) OVER (
    PARTITION BY product
    ORDER BY order_time
    RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW
  ) AS one_hour_prod_amount_sum
FROM Orders
