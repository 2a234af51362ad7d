-- capture: MySQL inventory tables -> Kafka topics in Debezium JSON, keyed by primary key
-- (so per-key order holds on any number of partitions and apply replicas).
-- Connection settings come from the environment (docker-compose.yml sets them).
SET 'pipeline.name' = 'capture';
SET 'execution.checkpointing.interval' = '500ms';

CREATE TABLE products_mysql (
  id INT NOT NULL,
  name STRING NOT NULL,
  description STRING,
  weight DOUBLE,
  price DECIMAL(10, 2),
  updated_at TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc',
  'hostname' = '${MYSQL_HOST:-127.0.0.1}',
  'port' = '${MYSQL_PORT:-3306}',
  'username' = '${CDC_MYSQL_USER:-cdc}',
  'password' = '${CDC_MYSQL_PASSWORD}',
  'database-name' = 'inventory',
  'table-name' = 'products',
  'server-id' = '${CDC_SERVER_ID:-5401}'
);

CREATE TABLE customers_mysql (
  id INT NOT NULL,
  first_name STRING NOT NULL,
  last_name STRING NOT NULL,
  email STRING NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc',
  'hostname' = '${MYSQL_HOST:-127.0.0.1}',
  'port' = '${MYSQL_PORT:-3306}',
  'username' = '${CDC_MYSQL_USER:-cdc}',
  'password' = '${CDC_MYSQL_PASSWORD}',
  'database-name' = 'inventory',
  'table-name' = 'customers',
  'server-id' = '${CDC_SERVER_ID_2:-5402}'
);

CREATE TABLE products_topic (
  id INT NOT NULL,
  name STRING NOT NULL,
  description STRING,
  weight DOUBLE,
  price DECIMAL(10, 2),
  updated_at TIMESTAMP(3) NOT NULL
) WITH (
  'connector' = 'kafka',
  'topic' = 'inventory.products',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-127.0.0.1:9092}',
  'key.format' = 'json',
  'key.fields' = 'id',
  'value.format' = 'debezium-json',
  'sink.delivery-guarantee' = 'at-least-once'
);

CREATE TABLE customers_topic (
  id INT NOT NULL,
  first_name STRING NOT NULL,
  last_name STRING NOT NULL,
  email STRING NOT NULL
) WITH (
  'connector' = 'kafka',
  'topic' = 'inventory.customers',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-127.0.0.1:9092}',
  'key.format' = 'json',
  'key.fields' = 'id',
  'value.format' = 'debezium-json',
  'sink.delivery-guarantee' = 'at-least-once'
);

EXECUTE STATEMENT SET BEGIN
  INSERT INTO products_topic SELECT * FROM products_mysql;
  INSERT INTO customers_topic SELECT * FROM customers_mysql;
END;
