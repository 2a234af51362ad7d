CREATE TABLE gen (id INT) WITH (
    'connector' = 'datagen',
    'number-of-row' = '10',
    'rows-per-second' = 'fast',
    'fields.id.kind' = 'sequense'
);
CREATE TABLE out (id INT) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
