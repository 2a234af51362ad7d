-- /*+ OPTIONS('k' = 'v') */ table hints: dynamic table options merged over the table's WITH
-- options for this query only (Flink's table.dynamic-table-options.enabled, default true).
CREATE TABLE gen (id INT NOT NULL) WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100');
CREATE TABLE out (id INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out SELECT id FROM gen /*+ OPTIONS('number-of-rows' = '2') */;
INSERT INTO out /*+ OPTIONS('print-identifier' = 'hinted') */ SELECT id FROM gen /*+ OPTIONS('number-of-rows'='1', 'fields.id.start'='50') */ AS g;
INSERT INTO out SELECT id FROM gen /*+ options('number-of-rows' = '1') */ WHERE id > 0;
