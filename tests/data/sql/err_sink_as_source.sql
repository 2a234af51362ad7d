CREATE TABLE a (id INT) WITH ('connector' = 'print');
CREATE TABLE b (id INT) WITH ('connector' = 'print');
INSERT INTO b SELECT * FROM a;
