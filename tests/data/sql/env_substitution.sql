-- ${VAR} in option and SET values: taken from the environment when the table is used,
-- ${VAR:-default} for unset or empty variables, $${ for a literal "${"
SET 'pipeline.name' = '${CDCFLOW_TEST_NOT_SET:-env-demo}';
CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '${CDCFLOW_TEST_ROWS}',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '${CDCFLOW_TEST_EMPTY:-7}',
    'fields.id.end' = '100'
);
CREATE TEMPORARY TABLE sink (id BIGINT NOT NULL)
WITH ('connector' = 'print', 'print-identifier' = '$${not-a-variable}');
SHOW CREATE TABLE gen;
INSERT INTO sink SELECT id FROM gen;
