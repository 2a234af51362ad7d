-- Subquery predicates in WHERE planned as semi and anti joins over changelogs (plans only: the
-- two sources interleave by timing; integration/stateful_sqlite checks the rows against SQLite)
CREATE TABLE o (id INT NOT NULL, k STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 10]; +I[2, b, 20]; +I[3, null, 30]; +I[4, c, 40]; -U[4, c, 40]; +U[4, d, 40]');
CREATE TABLE p (pid INT NOT NULL, k STRING, lim INT, PRIMARY KEY (pid) NOT ENFORCED) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, a, 5]; +I[2, d, 100]; -D[1, a, 5]; +I[3, b, 50]; +I[4, null, 0]; -D[4, null, 0]');
CREATE TABLE out (id INT, k STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE k IN (SELECT k FROM p);
-- NOT IN: the NULL p row removes every row while it is there; o's NULL k only with p empty
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE k NOT IN (SELECT k FROM p);
-- both sides NOT NULL: an equi-key anti join
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE id NOT IN (SELECT pid FROM p WHERE lim > 10);
-- correlated: an equi-key, a condition between both sides and a filter on the subquery alone
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE amount > 5 AND EXISTS (SELECT * FROM p WHERE p.k = o.k AND o.amount < p.lim AND pid < 10);
-- NOT over IN, a row of two values, an uncorrelated EXISTS
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE EXISTS (SELECT pid FROM p WHERE lim > 60);
-- a subquery with state of its own, under GROUP BY
-- a row NOT IN: the NOT NULL pair is a key, the NULL-able one a condition
EXPLAIN INSERT INTO out SELECT id, k FROM o WHERE (id, k) NOT IN (SELECT pid, k FROM p);
-- a subquery predicate in the subquery
