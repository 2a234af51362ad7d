-- datagen's fields.#.var-len: random strings of a length between 1 and fields.#.length (fixed
-- length without it); the seed makes the rows repeatable
CREATE TABLE g (id INT NOT NULL, v STRING, f STRING, b BYTES) WITH (
  'connector' = 'datagen', 'number-of-rows' = '6', 'seed' = '7',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6',
  'fields.v.var-len' = 'true', 'fields.v.length' = '5', 'fields.f.length' = '3',
  'fields.b.var-len' = 'true', 'fields.b.length' = '4');
SELECT id, v, CHAR_LENGTH(v) BETWEEN 1 AND 5 AS v_ok, CHAR_LENGTH(f) = 3 AS f_fixed FROM g;
