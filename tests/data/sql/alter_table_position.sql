-- ALTER TABLE as Flink's ALTER page has it: ADD / MODIFY columns FIRST or AFTER a column,
-- computed and metadata columns, a primary key and a watermark; DROP PRIMARY KEY, DROP
-- CONSTRAINT and DROP WATERMARK; the rows read after it follow the new column order
CREATE TABLE t (id INT NOT NULL, name STRING, price DECIMAL(10, 2))
WITH ('connector' = 'values', 'bounded' = 'true');
ALTER TABLE t ADD seq INT COMMENT 'added first' FIRST;
ALTER TABLE t ADD (ts TIMESTAMP(3), twice AS id * 2 AFTER id, label STRING AFTER seq,
  PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
DESCRIBE t;
-- MODIFY keeps a column's comment unless it gives one, and its place unless FIRST / AFTER
ALTER TABLE t MODIFY (seq BIGINT, price DECIMAL(12, 2) FIRST, name STRING COMMENT 'n' AFTER ts,
  WATERMARK FOR ts AS ts, CONSTRAINT pk_t PRIMARY KEY (id, seq) NOT ENFORCED);
SHOW CREATE TABLE t;
ALTER TABLE t DROP CONSTRAINT pk_t;
ALTER TABLE t DROP WATERMARK;
ALTER TABLE t ADD PRIMARY KEY (id) NOT ENFORCED;
ALTER TABLE t DROP PRIMARY KEY;
-- a computed column may be dropped with the column it reads
ALTER TABLE t DROP (twice, ts);
SHOW CREATE TABLE t;
ALTER TABLE t SET ('data' = '+I[1.50, 7, x, 1, a];+I[2.25, 8, NULL, 2, NULL]');
SELECT * FROM t;
