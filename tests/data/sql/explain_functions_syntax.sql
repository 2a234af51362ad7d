-- EXPLAIN prints the keyword call forms back as they were written (POSITION .. IN, EXTRACT .. FROM,
-- FLOOR .. TO, IS NOT DISTINCT FROM, INTERVAL)
CREATE TABLE src (id INT NOT NULL, epoch BIGINT, email STRING,
    ts AS TO_TIMESTAMP_LTZ(epoch, 3),
    day_str AS DATE_FORMAT(TO_TIMESTAMP_LTZ(epoch, 3), 'yyyy-MM-dd'),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
    'connector' = 'values', 'data' = '+I[1, 1709634030123, ''bob@example.com'']');
CREATE TABLE out (id INT, at_pos INT, h BIGINT, fl STRING, d STRING, late STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, POSITION('@' IN email), EXTRACT(HOUR FROM ts), DATE_FORMAT(FLOOR(ts TO HOUR), 'HH:mm'), day_str,
  DATE_FORMAT(ts - INTERVAL '5' SECOND, 'HH:mm:ss.SSS') FROM src WHERE ts IS NOT DISTINCT FROM ts;
