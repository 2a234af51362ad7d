-- SET keys, one rule: known keys act; known-harmless keys warn once and are accepted.
SET pipeline.max-parallelism = 128;
SET 'restart-strategy.type' = 'fixed-delay';
SET 'pipeline.max-parallelism' = '64';
SET sql-client.execution.result-mode = tableau;
SET execution.runtime-mode = streaming;
SET 'table.local-time-zone' = 'UTC';
SET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT id FROM a;
