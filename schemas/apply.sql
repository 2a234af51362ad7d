-- apply: Kafka topics in Debezium JSON -> PostgreSQL upserts and deletes by primary key.
-- Run it several times with the same group id: the replicas share the partitions and take
-- over each other's when one stops. Offsets are committed only after PostgreSQL committed.
SET 'pipeline.name' = 'apply';
SET 'execution.checkpointing.interval' = '500ms';

CREATE TABLE products_topic (
  id INT NOT NULL,
  name STRING NOT NULL,
  description STRING,
  weight DOUBLE,
  price DECIMAL(10, 2),
  updated_at TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'kafka',
  'topic' = 'inventory.products',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-127.0.0.1:9092}',
  'properties.group.id' = '${APPLY_GROUP:-cdcflow-apply}',
  'properties.auto.offset.reset' = 'earliest',
  'properties.session.timeout.ms' = '${KAFKA_SESSION_TIMEOUT_MS:-45000}',
  'scan.startup.mode' = 'group-offsets',
  'key.format' = 'json',
  'key.fields' = 'id',
  'value.format' = 'debezium-json'
);

CREATE TABLE customers_topic (
  id INT NOT NULL,
  first_name STRING NOT NULL,
  last_name STRING NOT NULL,
  email STRING NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'kafka',
  'topic' = 'inventory.customers',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-127.0.0.1:9092}',
  'properties.group.id' = '${APPLY_GROUP:-cdcflow-apply}',
  'properties.auto.offset.reset' = 'earliest',
  'properties.session.timeout.ms' = '${KAFKA_SESSION_TIMEOUT_MS:-45000}',
  'scan.startup.mode' = 'group-offsets',
  'key.format' = 'json',
  'key.fields' = 'id',
  'value.format' = 'debezium-json'
);

CREATE TABLE products_pg (
  id INT NOT NULL,
  name STRING NOT NULL,
  description STRING,
  weight DOUBLE,
  price DECIMAL(10, 2),
  updated_at TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://${PG_HOST:-127.0.0.1}:${PG_PORT:-5432}/${PG_DATABASE:-inventory}',
  'table-name' = 'products',
  'username' = '${PG_USER:-postgres}',
  'password' = '${PG_PASSWORD:-}'
);

CREATE TABLE customers_pg (
  id INT NOT NULL,
  first_name STRING NOT NULL,
  last_name STRING NOT NULL,
  email STRING NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://${PG_HOST:-127.0.0.1}:${PG_PORT:-5432}/${PG_DATABASE:-inventory}',
  'table-name' = 'customers',
  'username' = '${PG_USER:-postgres}',
  'password' = '${PG_PASSWORD:-}'
);

EXECUTE STATEMENT SET BEGIN
  INSERT INTO products_pg SELECT * FROM products_topic;
  INSERT INTO customers_pg SELECT * FROM customers_topic;
END;
