-- a MySQL GTID set as the start of mysql-cdc: refused before connecting, with what to give instead
CREATE TABLE src (id INT NOT NULL, v STRING) WITH (
  'connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '1',
  'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'table-name' = 't',
  'scan.startup.mode' = 'specific-offset',
  'scan.startup.specific-offset.gtid-set' = '3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
