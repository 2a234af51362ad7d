-- a jdbc table read in FROM is a bounded scan (Flink's JDBC source): a database that cannot
-- be opened fails the job naming it and the table
CREATE TABLE dim (k INT, name STRING) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:/nonexistent/dim.db', 'table-name' = 'dim');
SELECT * FROM dim;
