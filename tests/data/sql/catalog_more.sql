-- catalogs, LIKE, RESET, SHOW FUNCTIONS
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
SHOW CATALOGS;
USE CATALOG mem;
SHOW CURRENT CATALOG;
CREATE TABLE base (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE derived (extra DOUBLE) WITH ('number-of-rows' = '5') LIKE base;
SHOW CREATE TABLE derived;
SET 'parallelism.default' = '2';
SET;
RESET 'parallelism.default';
SET;
CREATE DATABASE scratch;
CREATE TABLE scratch.t (id INT) WITH ('connector' = 'blackhole');
DROP DATABASE scratch CASCADE;
SHOW DATABASES;
SHOW FUNCTIONS;
