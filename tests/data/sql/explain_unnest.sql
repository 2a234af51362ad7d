-- the plan of UNNEST: a Correlate between the scan and the Calc (Flink's node), the argument's
-- column read from the source
CREATE TABLE o (id INT, note STRING, tags ARRAY<STRING>, m MAP<STRING, INT>)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
SELECT id, tag FROM o CROSS JOIN UNNEST(tags) AS t (tag);
SELECT id, k, pos FROM o JOIN UNNEST(m) WITH ORDINALITY AS u (k, v, pos) ON v > 1 AND TRUE;
-- without a column list: Flink's names (EXPR$0 of an element, f0 and f1 of a MAP, ORDINALITY)
SELECT * FROM o CROSS JOIN UNNEST(tags);
SELECT * FROM o CROSS JOIN UNNEST(m) WITH ORDINALITY;
