CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT U&'x' UESCAPE 'a' FROM a;
