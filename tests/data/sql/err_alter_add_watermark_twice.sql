-- ALTER TABLE ... ADD WATERMARK to a table that has one (MODIFY changes it)
CREATE TABLE t (id INT NOT NULL, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
ALTER TABLE t ADD WATERMARK FOR ts AS ts - INTERVAL '1' SECOND;
