-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-cdc-docs-stable/docs/connectors/flink-sources/mysql-cdc/ (Flink CDC, MySQL CDC Connector), Set a different SERVER ID for each reader
-- added: tables the snippet uses (the page's orders table, as source_table)
CREATE TABLE source_table (
     order_id INT,
     customer_name STRING,
     PRIMARY KEY(order_id) NOT ENFORCED
     ) WITH (
     'connector' = 'mysql-cdc',
     'hostname' = 'localhost',
     'port' = '3306',
     'username' = 'root',
     'password' = '123456',
     'database-name' = 'mydb',
     'table-name' = 'orders');
SELECT * FROM source_table /*+ OPTIONS('server-id'='5401-5404') */ ;
