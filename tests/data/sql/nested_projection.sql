-- nested projection pushdown: only r.a and r.c.y are generated into the scan row, and
-- the values are those of the unprojected source (same seed, r read whole below)
CREATE TABLE t (
    id INT NOT NULL,
    r ROW<a INT, b STRING, c ROW<x DOUBLE, y BOOLEAN>>,
    other STRING
) WITH (
    'connector' = 'datagen',
    'number-of-rows' = '6',
    'seed' = '42',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '6',
    'fields.r.null-rate' = '0.5'
);
EXPLAIN SELECT id, r.a, r.c.y FROM t WHERE r.a > 0 OR r.c.y;
SELECT id, r.a, r.c.y FROM t WHERE r.a > 0 OR r.c.y;
-- r read whole: no nested projection, the same rows
EXPLAIN SELECT id, r.a, r.c.y FROM t WHERE (r.a > 0 OR r.c.y) AND (r IS NULL OR r IS NOT NULL);
SELECT id, r.a, r.c.y FROM t WHERE (r.a > 0 OR r.c.y) AND (r IS NULL OR r IS NOT NULL);
-- a sub-path is absorbed by its parent path: r.c covers r.c.y
EXPLAIN SELECT t.r.c.y, r.c IS NULL AS c_null, CHAR_LENGTH(r.b) AS blen FROM t;
SELECT t.r.c.y, r.c IS NULL AS c_null, CHAR_LENGTH(r.b) AS blen FROM t;
SELECT r.c.y, r.c IS NULL AS c_null, CHAR_LENGTH(r.b) AS blen FROM t WHERE r IS NULL OR r IS NOT NULL;
