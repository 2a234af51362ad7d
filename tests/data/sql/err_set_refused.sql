SET 'table.exec.sink.upsert-materialize' = 'NONE';
