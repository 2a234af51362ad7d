-- a server-id range written backwards: refused before connecting, with the form it takes
CREATE TABLE src (id INT NOT NULL, v STRING) WITH (
  'connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '1',
  'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'table-name' = 't',
  'server-id' = '5404-5400');
CREATE TABLE out (id INT NOT NULL, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM src;
