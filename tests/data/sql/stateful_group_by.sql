-- GROUP BY with retractions (COUNT, COUNT(DISTINCT)), as Flink's upsert-kafka pageviews example
CREATE TABLE pv (user_id INT, user_region STRING) WITH (
  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
  'data' = '+I[1, eu]; +I[2, eu]; +I[1, us]; +I[3, eu]; -U[3, eu]; +U[3, us]; -D[1, us]');
CREATE TABLE out (region STRING, cnt BIGINT, users BIGINT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out SELECT user_region, COUNT(*), COUNT(DISTINCT user_id) FROM pv GROUP BY user_region;
INSERT INTO out SELECT user_region, COUNT(*), COUNT(DISTINCT user_id) FROM pv GROUP BY user_region;
