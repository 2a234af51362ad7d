-- ALTER TABLE ... DROP WATERMARK of a table without one
CREATE TABLE t (id INT NOT NULL, ts TIMESTAMP(3)) WITH ('connector' = 'values');
ALTER TABLE t DROP WATERMARK;
