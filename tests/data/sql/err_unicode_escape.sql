CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT U&'ok \12x' FROM a;
