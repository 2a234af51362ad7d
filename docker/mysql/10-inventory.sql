-- The seeded source database of the docker-compose pipeline (a small shop inventory).
CREATE DATABASE IF NOT EXISTS inventory;
USE inventory;

CREATE TABLE products (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  description VARCHAR(512),
  weight DOUBLE,
  price DECIMAL(10, 2),
  updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)
) AUTO_INCREMENT = 101;

INSERT INTO products (name, description, weight, price) VALUES
  ('kick scooter', 'two wheels, folding frame', 3.14, 89.00),
  ('car battery', '12V, 60Ah', 8.1, 120.50),
  ('drill bits', 'set of 12, 2 to 8 mm', 0.8, 14.99),
  ('hammer', '16 oz claw hammer', 0.75, 19.90),
  ('rope', '20 m nylon rope', 1.2, 24.00),
  ('spare tire', '26 inch', 1.9, 31.25);

CREATE TABLE customers (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  first_name VARCHAR(255) NOT NULL,
  last_name VARCHAR(255) NOT NULL,
  email VARCHAR(255) NOT NULL UNIQUE
) AUTO_INCREMENT = 1001;

INSERT INTO customers (first_name, last_name, email) VALUES
  ('Ada', 'Lovelace', 'ada@example.com'),
  ('Grace', 'Hopper', 'grace@example.com'),
  ('Edsger', 'Dijkstra', 'edsger@example.com');
