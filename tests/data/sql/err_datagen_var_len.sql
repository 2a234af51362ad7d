-- fields.#.var-len on a column that is not a string or bytes is refused, naming the field
CREATE TABLE g (id INT NOT NULL) WITH (
  'connector' = 'datagen', 'number-of-rows' = '1', 'fields.id.var-len' = 'true');
SELECT * FROM g;
