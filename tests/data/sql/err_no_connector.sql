CREATE TABLE gen (id INT) WITH ('number-of-rows' = '1');
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
