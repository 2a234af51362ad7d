-- SET values are expanded when the statement runs; the error points at the value
SET 'parallelism.default' = '${CDCFLOW_TEST_NOT_SET}';
