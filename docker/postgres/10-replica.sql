-- The target of the apply pipeline: the same tables, kept equal to MySQL's by cdcflow.
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  weight DOUBLE PRECISION,
  price NUMERIC(10, 2),
  updated_at TIMESTAMP(3) NOT NULL
);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT NOT NULL
);
