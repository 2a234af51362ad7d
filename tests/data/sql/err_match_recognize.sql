-- MATCH_RECOGNIZE is refused by name at its keyword, not as a syntax error
CREATE TABLE t (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.a AS x PATTERN (A) DEFINE A AS a > 0);
