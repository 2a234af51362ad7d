-- JSON_OBJECT and JSON_ARRAY: types, NULL ON NULL / ABSENT ON NULL, nesting, escaping
CREATE TABLE src (id INT NOT NULL, name STRING, price DECIMAL(10, 2), ok BOOLEAN, d DATE) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''a "quoted"\tname'', 12.50, true, 2024-03-05]; +I[2, null, null, null, null]');
CREATE TABLE out (id INT, o STRING, a STRING, n STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id,
    JSON_OBJECT(KEY 'name' VALUE name, 'price' VALUE price, 'ok' VALUE ok, 'd' VALUE d, 'i' VALUE id * 2),
    JSON_ARRAY(name, price, 1.5e0, JSON_ARRAY(ok) NULL ON NULL),
    JSON_OBJECT('nested' VALUE JSON_OBJECT('x' VALUE name ABSENT ON NULL), 'arr' VALUE JSON_ARRAY(name))
FROM src;
