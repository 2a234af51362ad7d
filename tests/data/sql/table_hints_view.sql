-- A view keeps the hints of its query (SHOW CREATE VIEW shows them) and they act when it is read.
CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100');
CREATE VIEW v AS SELECT id FROM gen /*+ OPTIONS('number-of-rows' = '2', 'fields.id.start' = '7') */;
SHOW CREATE VIEW v;
SELECT id FROM v;
