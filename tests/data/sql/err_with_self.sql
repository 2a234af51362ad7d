CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'values');
WITH s AS (SELECT id FROM s) SELECT id FROM s;
