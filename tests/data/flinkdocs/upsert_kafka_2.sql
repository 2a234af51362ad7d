-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/connectors/table/upsert-kafka/ (Upsert Kafka SQL Connector)
-- added: the SELECT at the end (and a ";" before it where the snippet has none), so that the table is planned
-- changed: "..." in the WITH clause filled in.
CREATE TABLE KafkaTable (
  `ts` TIMESTAMP(3) METADATA FROM 'timestamp',
  `user_id` BIGINT,
  `item_id` BIGINT,
  `behavior` STRING,
  PRIMARY KEY (`user_id`) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'user_behavior', 'properties.bootstrap.servers' = 'localhost:9092',

  'key.format' = 'json',
  'key.json.ignore-parse-errors' = 'true',

  'value.format' = 'json',
  'value.json.fail-on-missing-field' = 'false',
  'value.fields-include' = 'EXCEPT_KEY'
)
;
SELECT * FROM KafkaTable;
