-- ALTER TABLE ... DROP CONSTRAINT of a name the primary key does not have
CREATE TABLE t (id INT NOT NULL, n INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values');
ALTER TABLE t DROP CONSTRAINT pk;
