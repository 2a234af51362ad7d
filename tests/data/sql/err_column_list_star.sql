CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT * FROM (SELECT * FROM src) AS t (a, b);
