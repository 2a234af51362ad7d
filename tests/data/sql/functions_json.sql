-- JSON built-ins: JSON_VALUE, JSON_QUERY, JSON_EXISTS on documents, bad JSON and NULL
CREATE TABLE src (id INT NOT NULL, doc STRING) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''{"a": {"b": [10, "x\"y", true, null, {"c": 1.5}]}, "k e y": "\u00e9\ud83d\ude00"}'']; +I[2, ''[1, 2'']; +I[3, null]; +I[4, ''{"a": 1} x'']; +I[5, ''  "scalar"  '']');
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, CONCAT_WS(' | ',
    COALESCE(JSON_VALUE(doc, '$.a.b[0]'), 'N'),
    COALESCE(JSON_VALUE(doc, '$.a.b[1]'), 'N'),
    COALESCE(JSON_VALUE(doc, 'lax $.a.b[2]'), 'N'),
    COALESCE(JSON_VALUE(doc, '$.a.b[3]'), 'N'),
    COALESCE(JSON_VALUE(doc, '$.a.b[4].c'), 'N'),
    COALESCE(JSON_VALUE(doc, '$[''k e y'']'), 'N'),
    COALESCE(JSON_VALUE(doc, '$.a'), 'N'),
    COALESCE(JSON_VALUE(doc, '$.missing'), 'N'),
    COALESCE(JSON_VALUE(doc, '$'), 'N'),
    COALESCE(JSON_QUERY(doc, '$.a'), 'N'),
    COALESCE(JSON_QUERY(doc, '$.a.b[0]'), 'N'),
    COALESCE(CAST(JSON_EXISTS(doc, 'strict $.a.b[4]') AS STRING), 'N'),
    COALESCE(CAST(JSON_EXISTS(doc, '$.a.b[5]') AS STRING), 'N'),
    COALESCE(CAST(JSON_VALUE(doc, '$.a.b[0]' RETURNING INT NULL ON ERROR) * 2 AS STRING), 'N'),
    COALESCE(CAST(JSON_VALUE(doc, '$.a.b[1]' RETURNING INT) AS STRING), 'N'),
    COALESCE(JSON_QUERY(doc, '$.a.b[4]' WITHOUT WRAPPER NULL ON EMPTY), 'N'))
FROM src;
