-- A nullable column into a NOT NULL sink column is checked per row, as Flink's
-- table.exec.sink.not-null-enforcer: DROP drops and counts the rows holding NULL there.
SET 'table.exec.sink.not-null-enforcer' = 'DROP';
CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'values', 'data' = '+I[1, a]; +I[null, b]; +I[3, c]');
CREATE TABLE out (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values');
INSERT INTO out SELECT id, name FROM src;
