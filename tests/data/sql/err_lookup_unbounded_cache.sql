-- a PARTIAL lookup cache needs a bound (max rows or an expiry), as Flink's does
CREATE TABLE dim (k INT, name STRING) WITH (
    'connector' = 'values', 'data' = '+I[1, x]', 'lookup.cache' = 'PARTIAL');
CREATE TABLE a (id INT, k INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1, 1]');
SELECT a.id, d.name FROM a JOIN dim FOR SYSTEM_TIME AS OF a.pt AS d ON a.k = d.k;
