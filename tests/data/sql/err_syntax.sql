CREATE TABLE t (
    id INT,
    name STRING
WITH ('connector' = 'datagen');
