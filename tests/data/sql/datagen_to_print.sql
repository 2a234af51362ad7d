-- datagen -> print with a column list, a sequence and a seed
CREATE TABLE gen (
    id BIGINT NOT NULL,
    code STRING,
    PRIMARY KEY (id) NOT ENFORCED
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '5',
    'seed' = '1',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '10',
    'fields.id.end' = '14',
    'fields.code.length' = '4'
);
CREATE TEMPORARY TABLE IF NOT EXISTS sink (code STRING, id BIGINT NOT NULL)
WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO sink SELECT code, id FROM gen;
