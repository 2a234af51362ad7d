-- Top-N (ROW_NUMBER), SELECT DISTINCT, SUM/AVG/MIN/MAX with HAVING over a changelog
CREATE TABLE sales (cat STRING, product STRING, amount INT) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[a, p1, 5]; +I[a, p2, 9]; +I[a, p3, 7]; +I[b, q1, 1]; -D[a, p2, 9]; +I[a, p4, 6]');
CREATE TABLE out (cat STRING, product STRING, amount INT, rn BIGINT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY amount DESC) AS rn FROM sales) WHERE rn <= 2;
INSERT INTO out SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY amount DESC) AS rn FROM sales) WHERE rn <= 2;
CREATE TABLE out2 (cat STRING) WITH ('connector' = 'print');
INSERT INTO out2 SELECT DISTINCT cat FROM sales;
CREATE TABLE out3 (cat STRING, s INT, a INT, mn INT, mx INT) WITH ('connector' = 'print');
INSERT INTO out3 SELECT cat, SUM(amount), AVG(amount), MIN(amount), MAX(amount) FROM sales GROUP BY cat HAVING COUNT(*) > 1;
