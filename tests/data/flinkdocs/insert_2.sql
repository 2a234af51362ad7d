-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/insert/ (INSERT Statement, Insert from select queries)
-- changed: "WITH (...)" filled in, and a ';' added after the CREATE TABLE (the page has none).
-- added: tables the snippet uses
CREATE TABLE page_view_source (`user` STRING, cnt INT, country STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
-- Creates a partitioned table
CREATE TABLE country_page_view (user STRING, cnt INT, date STRING, country STRING)
PARTITIONED BY (date, country)
WITH ('connector' = 'filesystem', 'path' = 'country_page_view', 'format' = 'csv');

-- Appends rows into the static partition (date='2019-8-30', country='China')
INSERT INTO country_page_view PARTITION (date='2019-8-30', country='China')
  SELECT user, cnt FROM page_view_source;
