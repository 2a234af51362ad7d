-- ALTER TABLE ... DROP of a column the watermark reads (Flink: is referenced by watermark expression)
CREATE TABLE t (id INT NOT NULL, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
ALTER TABLE t DROP ts;
