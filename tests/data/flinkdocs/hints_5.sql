-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/queries/hints/ (SQL Hints, Join Hints SHUFFLE_HASH)
-- changed: "WITH (...)" filled in.
CREATE TABLE t1 (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE t2 (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE t3 (id BIGINT, name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');

-- Flink will use hash join for both joins and t1, t3 will be the join build side.
SELECT /*+ SHUFFLE_HASH(t1, t3) */ * FROM t1 JOIN t2 ON t1.id = t2.id JOIN t3 ON t1.id = t3.id;
