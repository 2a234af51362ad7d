-- a temporary view over a table and a view over the view
CREATE TABLE gen (id INT NOT NULL, v INT) WITH (
    'connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
    'fields.id.end' = '6', 'fields.v.min' = '1', 'fields.v.max' = '1');
CREATE TEMPORARY VIEW evens (n, doubled) AS SELECT id, id * 2 FROM gen WHERE id % 2 = 0;
CREATE VIEW big_evens AS SELECT n, doubled FROM evens WHERE n > 2;
CREATE TABLE out (n INT NOT NULL, doubled INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM big_evens;
