CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE VIEW v AS SELECT id FROM gen;
SELECT id FROM v /*+ OPTIONS('number-of-rows' = '2') */;
