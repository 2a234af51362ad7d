SET 'table.exec.emit.early-fire.enabled' = 'true';
