CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
CREATE VIEW v AS SELECT /*+ STATE_TTL('gen' = '1d') */ id FROM gen;
SELECT id FROM v;
