-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/hints/ (SQL Hints, Join Hints BROADCAST)
-- changed: "WITH (...)" filled in.
CREATE TABLE t1 (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE t2 (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');

-- Flink will use broadcast join and t1 will be the broadcast table.
SELECT /*+ BROADCAST(t1) */ * FROM t1 JOIN t2 ON t1.id = t2.id;
