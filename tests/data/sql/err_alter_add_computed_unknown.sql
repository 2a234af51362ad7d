-- ALTER TABLE ... ADD of a computed column that reads a column the table does not have: said
-- with the definition it would leave
CREATE TABLE t (id INT NOT NULL) WITH ('connector' = 'values');
ALTER TABLE t ADD c AS nope + 1 AFTER id;
