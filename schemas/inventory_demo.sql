-- The Kafka demo of the Quick start (scripts/demo.sh): the Debezium change events of the
-- inventory example, read from the embedded broker (`cdcflow kafka-mock`) up to its end,
-- applied to a SQLite table with upserts and deletes by primary key.
SET 'pipeline.name' = 'inventory-demo';

CREATE TABLE products_cdc (
  id INT NOT NULL,
  name STRING,
  description STRING,
  weight DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'kafka',
  'topic' = 'dbserver1.inventory.products',
  'properties.bootstrap.servers' = '${KAFKA_BOOTSTRAP:-127.0.0.1:9092}',
  'properties.group.id' = 'inventory-demo',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format' = 'debezium-json'
);

CREATE TABLE products (
  id INT NOT NULL,
  name STRING,
  description STRING,
  weight DOUBLE,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:sqlite:${DEMO_DB:-demo.db}',
  'table-name' = 'products',
  'sink.auto-create-table' = 'true'
);

INSERT INTO products SELECT * FROM products_cdc;
