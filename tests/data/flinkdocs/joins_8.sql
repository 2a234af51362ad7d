-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/joins/ (Joins, Processing Time Temporal Join)
-- added: tables the snippet uses (LatestRates as a JDBC lookup table, as the page describes it)
CREATE TABLE Orders (amount INT, currency STRING, proctime AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE LatestRates (currency STRING, rate INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://mysqlhost:3306/ratesdb', 'table-name' = 'rates');
SELECT
  o.amount, o.currency, r.rate, o.amount * r.rate
FROM
  Orders AS o
  JOIN LatestRates FOR SYSTEM_TIME AS OF o.proctime AS r
  ON r.currency = o.currency
