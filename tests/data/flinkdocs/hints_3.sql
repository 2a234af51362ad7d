-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/hints/ (SQL Hints, Dynamic Table Options)
-- changed: "WITH (...)" filled in (Kafka tables, as the hint names Kafka options).
CREATE TABLE kafka_table1 (id BIGINT, name STRING, age INT) WITH ('connector' = 'kafka', 'topic' = 't1', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
CREATE TABLE kafka_table2 (id BIGINT, name STRING, age INT) WITH ('connector' = 'kafka', 'topic' = 't2', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');

-- override table options for INSERT target table
insert into kafka_table1 /*+ OPTIONS('sink.partitioner'='round-robin') */ select * from kafka_table2;
