-- a bare SELECT prints its rows
CREATE TABLE gen (id INT NOT NULL, name STRING) WITH (
    'connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
    'fields.id.end' = '5', 'seed' = '9', 'fields.name.length' = '3');
SELECT id, UPPER(name) AS shout FROM gen WHERE id > 2;
EXPLAIN SELECT id FROM gen LIMIT 2;
SELECT COALESCE(NULL, id * 10) AS ten FROM gen LIMIT 2;
