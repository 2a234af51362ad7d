SET 'table.exec.sink.not-null-enforcr' = 'DROP';
