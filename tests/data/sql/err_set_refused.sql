SET 'table.exec.state.ttl' = '1 h';
