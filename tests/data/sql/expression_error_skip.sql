SET 'table.exec.expression-error.policy' = 'SKIP';
CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
    'fields.id.start' = '0', 'fields.id.end' = '2');
CREATE TABLE out (x INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out SELECT 10 / id FROM gen;
