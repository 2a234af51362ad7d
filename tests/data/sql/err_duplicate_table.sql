CREATE TABLE a (id INT) WITH ('connector' = 'print');
CREATE TABLE default_catalog.default_database.a (id INT) WITH ('connector' = 'print');
