-- computed columns are evaluated from the physical ones; only what the query needs is read
CREATE TABLE gen (id INT NOT NULL, twice AS id * 2, label AS CONCAT('n', CAST(id AS STRING)))
WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
      'fields.id.end' = '3');
CREATE TABLE out (id INT NOT NULL, twice INT NOT NULL, label STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT * FROM gen;
