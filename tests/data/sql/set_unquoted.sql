-- The SQL client's unquoted SET/RESET forms, as the Flink CDC docs write them.
SET execution.checkpointing.interval = 3s;
SET 'parallelism.default' = 8;
SET pipeline.name = my job ;
SET table.exec.sink.not-null-enforcer = 'DROP';
SET;
RESET pipeline.name;
SET;
RESET;
SET;
SET 'execution.checkpointing.interval' = '2s';
SET;
