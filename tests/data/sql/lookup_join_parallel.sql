-- a lookup join on three splits (each split has its own lookup handle and cache) into a
-- materialized table: every probe row joined once
SET 'parallelism.default' = '3';
CREATE TABLE gen (id INT NOT NULL, pt AS PROCTIME()) WITH (
    'connector' = 'datagen', 'number-of-rows' = '12',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '12');
CREATE TABLE dim (k INT, name STRING) WITH (
    'connector' = 'values', 'data' = '+I[0, zero]; +I[1, one]; +I[2, two]',
    'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '2');
CREATE TABLE out (id INT NOT NULL, k INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'sink.materialize' = 'true');
INSERT INTO out SELECT g.id, d.k, d.name FROM gen AS g
JOIN dim FOR SYSTEM_TIME AS OF g.pt AS d ON d.k = MOD(g.id, 4);
