CREATE TABLE gen (id INT) WITH ('connector' = 'datagne');
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
