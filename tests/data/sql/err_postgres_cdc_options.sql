-- Flink CDC's postgres-cdc options: keys with no effect warn once and are accepted; Debezium
-- properties: one this source has an option for is refused naming it, one that changes the
-- rows read is refused, a snapshot.mode without an equivalent is refused listing those that
-- have one, any other is accepted with a warning that it is ignored
CREATE TABLE src (id INT NOT NULL, v STRING) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '1',
  'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'table-name' = 't',
  'slot.name' = 's', 'scan.snapshot.fetch.size' = '1024',
  'debezium.slot.name' = 's2',
  'debezium.snapshot.select.statement.overrides' = 'public.t',
  'debezium.snapshot.mode' = 'when_needed',
  'debezium.tombstones.on.delete' = 'false');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
