-- string built-ins on constants: digests, base64, CHR, regular expressions
CREATE TABLE src (id INT NOT NULL, s STRING, re STRING) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''foothebar'', ''foo(.*)(bar)'']; +I[2, ''abc 123 de45'', ''[0-9]+'']; +I[3, null, ''a'']; +I[4, ''x'', ''(unclosed'']');
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, CONCAT_WS(' | ',
    MD5('abc'), SHA256(''), MD5(''),
    MD5('The quick brown fox jumps over the lazy dog, twice over, again'),
    SHA256('The quick brown fox jumps over the lazy dog, twice over, again'),
    SHA256('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'), MD5('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'), TO_BASE64('Hello, Flink!'), FROM_BASE64('SGVsbG8='),
    CHR(97), CHR(353), CAST(HASH_CODE('Hello') AS STRING), CAST(ASCII('') AS STRING),
    REGEXP_REPLACE('abx', 'x*', '-'), REGEXP_REPLACE('2024-01-02', '\d+', '<$0>'),
    REGEXP_EXTRACT('foothebar', 'foo(.*)(bar)', 2), INITCAP('hELLO wORLD-2day'),
    REGEXP_EXTRACT('héllo', 'h(.)l', 1), REGEXP_REPLACE('héllo wörld', '[éö]', '_'),
    REGEXP_REPLACE('hé', '', '|'),
    COALESCE(REGEXP_EXTRACT('foothebar', 'foo(.*)(bar)', 3), 'N'),
    COALESCE(CAST(REGEXP(s, '\d{3}') AS STRING), 'N'),
    COALESCE(CAST(REGEXP(s, re) AS STRING), 'N'),
    COALESCE(REGEXP_EXTRACT(s, re), 'N'),
    COALESCE(REGEXP_REPLACE(s, re, '#'), 'N'),
    COALESCE(CAST(NULL IS DISTINCT FROM NULL AS STRING), 'N'))
FROM src;
