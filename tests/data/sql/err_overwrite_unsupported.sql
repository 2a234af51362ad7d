CREATE TABLE src (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE TABLE out (id INT NOT NULL) WITH ('connector' = 'print');
INSERT OVERWRITE out SELECT * FROM src;
