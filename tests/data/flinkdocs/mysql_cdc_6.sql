-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-cdc-docs-stable/docs/connectors/flink-sources/mysql-cdc/ (Flink CDC, MySQL CDC Connector, Controlling Parallelism)
-- changed: the "Flink SQL>" prompt is left out.
SET 'parallelism.default' = 8;
