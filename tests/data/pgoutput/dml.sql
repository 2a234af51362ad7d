SET lc_monetary = 'C';
INSERT INTO t_types VALUES
 (1, true, -32768, -2147483648, -9223372036854775808, 0,
  -3.4e38, -1.7976931348623157e308, -99999999.99, -123456789012345678.123456789012345678,
  'ab', 'héllo', E'tab\there "q" \\ ünï 😀', 'pg_name', '\x00ff10',
  '0044-03-15 BC', '00:00:00', '23:59:59.999', '1970-01-01 00:00:00', '2024-02-29 23:59:59',
  '2024-01-31 13:45:06.5+05:30', '1 year 2 mons 3 days 04:05:06.5', '13:45:06+02',
  B'1', B'1010000001', B'101',
  '{"b": 1,  "a": [1, 2]}', '{"b": 1, "a": [1, 2], "a": 3}', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
  '<a>x</a>', '192.168.0.1', '10.0.0.0/8', '08:00:2b:01:02:03', 12.34, '(1.5,-2)',
  '{1,NULL,-3}', '{"a b","c\"d",NULL,"NULL",""}', '{1.5,-2.0}', '{2024-01-31,NULL}',
  'happy', '[1,10)', 'a fat cat'),
 (2, false, 32767, 2147483647, 9223372036854775807, 4294967295,
  3.4e38, 1e100, 99999999.99, 0.000000000000000001,
  'abcd', '', '', '', '\x',
  '9999-12-31', '24:00:00', '12:00:00.5', '2024-01-31 13:45:06.123456', '2024-01-31 13:45:06',
  '1969-12-31 23:59:59.999999+00', '-00:00:01', '00:00:00-05',
  B'0', B'0000000000', B'',
  '[]', '{}', '00000000-0000-0000-0000-000000000000', '', '::1', '::/0', '00:00:00:00:00:00', -1, '(0,0)',
  '{}', '{}', '{}', '{}', 'sad', 'empty', ''),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
UPDATE t_types SET c_float4 = 0.1, c_float8 = 'NaN' WHERE id = 2;
DELETE FROM t_types WHERE id = 3;
INSERT INTO t_toast VALUES (1, 10, repeat('x', 4000));
UPDATE t_toast SET small = 11 WHERE id = 1;
UPDATE t_toast SET id = 2 WHERE id = 1;
DELETE FROM t_toast WHERE id = 2;
INSERT INTO t_full VALUES (1, 'one');
UPDATE t_full SET v = 'uno' WHERE id = 1;
DELETE FROM t_full WHERE id = 1;
BEGIN; INSERT INTO t_full VALUES (5, 'rolled back'); ROLLBACK;
BEGIN;
INSERT INTO t_full VALUES (2, 'two'), (3, 'three');
SELECT 'm' FROM pg_logical_emit_message(true, 'cdc', 'in a transaction');
UPDATE t_full SET v = NULL WHERE id = 3;
COMMIT;
SELECT 'm' FROM pg_logical_emit_message(false, 'cdc', 'not transactional');
TRUNCATE t_full;
