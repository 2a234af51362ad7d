-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/sql/insert/ (INSERT Statement, Insert into multiple tables)
-- changed: "WITH (...)" filled in.

CREATE TABLE students (name STRING, age INT, gpa DECIMAL(3, 2)) WITH ('connector' = 'print');

EXECUTE STATEMENT SET
BEGIN
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
INSERT INTO students
  VALUES ('fred flintstone', 35, 1.28), ('barney rubble', 32, 2.32);
END;
