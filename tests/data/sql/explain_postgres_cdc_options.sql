-- Flink CDC's postgres-cdc options with no effect here: accepted, one warning each saying why
CREATE TABLE src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '1',
  'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'table-name' = 't',
  'slot.name' = 's', 'scan.snapshot.fetch.size' = '1024', 'connect.pool.size' = '30',
  'chunk-meta.group.size' = '1000',
  'chunk-key.even-distribution.factor.upper-bound' = '1000.0',
  'chunk-key.even-distribution.factor.lower-bound' = '0.05',
  'scan.incremental.close-idle-reader.enabled' = 'true',
  'scan.incremental.snapshot.backfill.skip' = 'true',
  'scan.lsn-commit.checkpoints-num-delay' = '3',
  'scan.startup.mode' = 'committed-offset', 'connect.timeout' = '5s',
  'connect.max-retries' = '1', 'scan.incremental.snapshot.enabled' = 'false');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
