-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/deduplication/ (Deduplication)
-- doc-error: the query selects order_id, which the table does not have, and "user" is a
-- reserved word in Flink's grammar (it must be `user`): Flink refuses it too.
-- changed: "WITH (...)" filled in.
CREATE TABLE Orders (
  order_time  STRING,
  user        STRING,
  product     STRING,
  num         BIGINT,
  proctime AS PROCTIME()
) WITH ('connector' = 'datagen', 'number-of-rows' = '10');

-- remove duplicate rows on order_id and keep the first occurrence row,
-- because there shouldn't be two orders with the same order_id.
SELECT order_id, user, product, num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proctime ASC) AS row_num
  FROM Orders)
WHERE row_num = 1
