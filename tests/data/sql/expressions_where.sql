-- SELECT expressions and WHERE over a datagen sequence
CREATE TABLE gen (id BIGINT NOT NULL, name STRING) WITH (
    'connector' = 'datagen', 'seed' = '3', 'fields.name.length' = '5',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20');
CREATE TABLE out (id BIGINT NOT NULL, kind STRING, big BOOLEAN, scaled DECIMAL(12, 3), n INT)
WITH ('connector' = 'print');
INSERT INTO out
SELECT id,
       CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END AS kind,
       id BETWEEN 10 AND 15,
       CAST(id AS DECIMAL(10, 2)) * 1.5,
       CHAR_LENGTH(UPPER(name))
FROM gen
WHERE id IN (2, 3, 11, 12, 19) OR id > 19;
