CREATE TABLE gen (a INT, b STRING, c DOUBLE) WITH ('connector' = 'datagen');
CREATE TABLE out (c DOUBLE, a INT) WITH ('connector' = 'blackhole');
INSERT INTO out SELECT c, a FROM gen LIMIT 10;
