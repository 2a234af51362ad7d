-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-cdc-docs-stable/docs/connectors/flink-sources/mysql-cdc/ (Flink CDC, MySQL CDC Connector, Startup Reading Position)
-- changed: one choice of the page's block of 'scan.startup.mode' lines (see mysql_cdc_7), with
-- the columns and connection options "(...)" and "..." stand for; a SELECT added at the end.
CREATE TABLE mysql_source (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'mysql-cdc', 'hostname' = 'localhost', 'username' = 'root', 'password' = '123456', 'database-name' = 'mydb', 'table-name' = 'orders',
    'scan.startup.mode' = 'latest-offset' -- Start from latest offset
);
SELECT * FROM mysql_source;
