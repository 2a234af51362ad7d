-- mini-batch enabled without a size: Flink refuses it once an operator batches
-- ("table.exec.mini-batch.size must be > 0.")
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
CREATE TABLE t (id INT, g STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]');
CREATE TABLE out (g STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT g, COUNT(*) FROM t GROUP BY g;
