-- ALTER TABLE: options, columns and names of a table's definition
CREATE TABLE t (id INT NOT NULL, name STRING, price DECIMAL(10, 2), twice AS id * 2,
  PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'values', 'data' = '+I[1, a, 1.50]', 'bounded' = 'true');
ALTER TABLE t SET ('changelog-mode' = 'I', 'bounded' = 'true');
ALTER TABLE t RESET ('bounded');
ALTER TABLE t ADD note STRING;
ALTER TABLE t ADD (qty INT NOT NULL, tags STRING ARRAY);
ALTER TABLE t MODIFY price DECIMAL(12, 2);
ALTER TABLE t DROP (tags, note);
ALTER TABLE t RENAME name TO label;
SHOW CREATE TABLE t;
ALTER TABLE t RENAME TO t2;
ALTER TABLE IF EXISTS t DROP qty;
SHOW TABLES;
DESCRIBE t2;
