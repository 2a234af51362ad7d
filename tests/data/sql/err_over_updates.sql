-- an OVER aggregation reads append-only rows
CREATE TABLE t (id INT NOT NULL, ts TIMESTAMP(3), v INT, PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts) WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
SELECT id, SUM(v) OVER (PARTITION BY id ORDER BY ts) AS s FROM t;
