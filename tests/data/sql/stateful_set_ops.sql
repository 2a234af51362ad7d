-- UNION, INTERSECT, EXCEPT and their ALL forms over changelogs, with NULLs (equal in set
-- operators), updates and deletes: each result retracts what the changes take away
CREATE TABLE l (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a]; +I[2, b]; +I[3, b]; +I[4, null]; +I[5, c]; -U[5, c]; +U[5, a]; -D[2, b]');
CREATE TABLE r (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, b]; +I[2, null]; +I[3, a]; +I[4, d]; -D[3, a]; +I[5, a]; +I[6, a]');
-- (each job's rows materialized: the interleaving of the two sources' changes varies)
CREATE TABLE out (v STRING) WITH ('connector' = 'values', 'sink.materialize' = 'true');
EXPLAIN INSERT INTO out SELECT v FROM l UNION SELECT v FROM r;
INSERT INTO out SELECT v FROM l UNION SELECT v FROM r;
EXPLAIN INSERT INTO out SELECT v FROM l INTERSECT SELECT v FROM r;
INSERT INTO out SELECT v FROM l INTERSECT SELECT v FROM r;
INSERT INTO out SELECT v FROM l EXCEPT SELECT v FROM r;
EXPLAIN INSERT INTO out SELECT v FROM l INTERSECT ALL SELECT v FROM r;
INSERT INTO out SELECT v FROM l INTERSECT ALL SELECT v FROM r;
INSERT INTO out SELECT v FROM l EXCEPT ALL SELECT v FROM r;
-- left to right, INTERSECT first: l EXCEPT (r INTERSECT l)
INSERT INTO out SELECT v FROM l EXCEPT SELECT v FROM r INTERSECT SELECT v FROM l;
