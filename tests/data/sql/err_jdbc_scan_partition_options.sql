-- jdbc scan.partition.*: all four options or none (Flink's rule and text)
CREATE TABLE t (id INT, name STRING) WITH (
    'connector' = 'jdbc', 'url' = 'jdbc:sqlite:/nonexistent/t.db', 'table-name' = 't',
    'scan.partition.column' = 'id', 'scan.partition.lower-bound' = '10',
    'scan.partition.upper-bound' = '1');
SELECT * FROM t;
