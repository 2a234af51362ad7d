CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'values', 'data' = '+I[1]');
CREATE VIEW v AS SELECT id, id FROM a;
SELECT * FROM v;
