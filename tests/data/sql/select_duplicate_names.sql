-- SELECT id, id: the second column is named id0, a third id1, as Flink (Calcite's uniquify) does.
CREATE TABLE a (id INT NOT NULL, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, x]; +I[2, y]');
CREATE TABLE out (id INT NOT NULL, id0 INT NOT NULL, id1 INT NOT NULL, id00 STRING) WITH ('connector' = 'values');
INSERT INTO out (id, id0, id1, id00) SELECT id, id, id, name AS id0 FROM a;
EXPLAIN SELECT id, id, *, name AS id FROM a;
