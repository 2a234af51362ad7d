-- a jdbc table is a lookup table: it cannot be scanned
CREATE TABLE dim (k INT, name STRING) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:/nonexistent/dim.db', 'table-name' = 'dim');
SELECT * FROM dim;
