-- MD5, SHA256, TO_BASE64, FROM_BASE64, HASH_CODE, REVERSE, INITCAP of NULL and of a column
CREATE TABLE src (id INT NOT NULL, s STRING) WITH (
    'connector' = 'values', 'data' = '+I[1, YWJj]; +I[2, null]; +I[3, '''']');
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, CONCAT_WS(' | ',
    COALESCE(MD5(s), 'N'), COALESCE(SHA256(s), 'N'), COALESCE(TO_BASE64(s), 'N'),
    COALESCE(FROM_BASE64(TO_BASE64(s)), 'N'), COALESCE(CAST(HASH_CODE(s) AS STRING), 'N'),
    COALESCE(REVERSE(s), 'N'), COALESCE(INITCAP(s), 'N'), COALESCE(FROM_BASE64(s), 'N'))
FROM src;
