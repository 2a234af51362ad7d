-- string built-ins (Flink semantics): values, NULL inputs, NULL results
CREATE TABLE src (id INT NOT NULL, s STRING, p STRING, n INT) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''hello world'', ''o'', 2]; +I[2, ''a-b--c'', ''-'', 3]; +I[3, null, null, null]; +I[4, '''', '''', 0]; +I[5, ''Grüße, 你好'', ''ü'', -1]');
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, CONCAT_WS(' | ',
    COALESCE(REPLACE(s, p, '_'), 'N'),
    COALESCE(CAST(POSITION(p IN s) AS STRING), 'N'),
    COALESCE(CAST(LOCATE(p, s, 6) AS STRING), 'N'),
    COALESCE(LPAD(s, n + 6, '*+'), 'N'),
    COALESCE(RPAD(s, n, '.'), 'N'),
    COALESCE(SPLIT_INDEX(s, p, n), 'N'),
    COALESCE(INITCAP(s), 'N'),
    COALESCE(REVERSE(s), 'N'),
    COALESCE(CAST(HASH_CODE(s) AS STRING), 'N'),
    COALESCE(TO_BASE64(s), 'N'),
    COALESCE(CAST(ASCII(s) AS STRING), 'N'),
    COALESCE(CAST(s IS DISTINCT FROM 'a-b--c' AS STRING), 'N'),
    COALESCE(CAST(s IS NOT DISTINCT FROM p AS STRING), 'N'))
FROM src;
