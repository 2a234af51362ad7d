-- ALTER TABLE ... MODIFY PRIMARY KEY of a table without one (ADD adds one)
CREATE TABLE t (id INT NOT NULL, n INT) WITH ('connector' = 'values');
ALTER TABLE t MODIFY PRIMARY KEY (id) NOT ENFORCED;
