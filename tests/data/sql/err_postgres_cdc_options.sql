-- Flink CDC's postgres-cdc options: keys with no effect warn once and are accepted; Debezium
-- properties are refused, naming the option to use where one exists
CREATE TABLE src (id INT NOT NULL, v STRING) WITH (
  'connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '1',
  'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'table-name' = 't',
  'slot.name' = 's', 'scan.snapshot.fetch.size' = '1024',
  'debezium.slot.name' = 's2',
  'debezium.snapshot.select.statement.overrides' = 'public.t');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
