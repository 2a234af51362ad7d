-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/set/ (SET Statements)
-- changed: the "Flink SQL>" prompt and the printed result are left out.
SET;
