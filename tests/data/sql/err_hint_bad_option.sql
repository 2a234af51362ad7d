CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE TABLE out (id INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out SELECT id FROM gen /*+ OPTIONS('number-of-rowz' = '2') */;
