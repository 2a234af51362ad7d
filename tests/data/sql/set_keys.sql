-- SET keys, one rule: known keys act; known-harmless keys warn once and are accepted.
SET pipeline.max-parallelism = 128;
SET 'restart-strategy.type' = 'fixed-delay';
SET 'pipeline.max-parallelism' = '64';
SET sql-client.execution.result-mode = tableau;
SET execution.runtime-mode = streaming;
SET 'table.local-time-zone' = 'UTC';
SET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '500 ms';
SET 'table.exec.mini-batch.size' = '1000';
CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT id FROM a;
