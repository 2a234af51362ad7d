-- an unset variable without a default is an error naming it, never an empty value
CREATE TEMPORARY TABLE gen (id BIGINT) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '${CDCFLOW_TEST_NOT_SET}'
);
CREATE TEMPORARY TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id FROM gen;
