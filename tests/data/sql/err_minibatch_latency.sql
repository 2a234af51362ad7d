-- mini-batch enabled without allow-latency: Flink refuses it ("MiniBatch Latency must be
-- greater than 0 ms.") whatever the query
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.size' = '5000';
CREATE TABLE t (id INT, g STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (g STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT g, COUNT(*) FROM t GROUP BY g;
