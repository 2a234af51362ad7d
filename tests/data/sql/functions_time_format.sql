-- parsing and formatting: DATE_FORMAT, TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP, FROM_UNIXTIME,
-- TO_TIMESTAMP_LTZ; text that does not parse gives NULL (UNIX_TIMESTAMP: Long.MIN_VALUE)
CREATE TABLE src (id INT NOT NULL, s STRING, f STRING, n BIGINT) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''2024-03-05 10:20:30'', ''yyyy-MM-dd HH:mm:ss'', 1709634030]; +I[2, ''05/Mar/2024:09:05:07 PM'', ''dd/MMM/yyyy:hh:mm:ss a'', 0]; +I[3, ''2024-02-30 00:00:00'', ''yyyy-MM-dd HH:mm:ss'', -1]; +I[4, ''garbage'', ''yyyy'', null]; +I[5, null, null, 1709634030123]; +I[6, ''2024-03-05 Q'', ''yyyy-MM-dd Q'', 1]');
CREATE TABLE out (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT id, CONCAT_WS(' | ',
    COALESCE(DATE_FORMAT(TO_TIMESTAMP(s, f), 'yyyy-MM-dd HH:mm:ss.SSS'), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP(s), 'yyyy-MM-dd HH:mm:ss.SSS'), 'N'),
    COALESCE(CAST(TO_DATE(SUBSTRING(s, 1, 10)) AS STRING), 'N'),
    COALESCE(CAST(UNIX_TIMESTAMP(s, f) AS STRING), 'N'),
    COALESCE(DATE_FORMAT(s, 'yyyyMMdd''T''HHmmss'), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP(s, f), 'EEEE d MMMM yy, h:mm a, D'), 'N'),
    COALESCE(FROM_UNIXTIME(n), 'N'),
    COALESCE(FROM_UNIXTIME(n, 'yyyy/MM/dd'), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP_LTZ(n, 0), 'yyyy-MM-dd HH:mm:ss.SSS'), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP_LTZ(n, 3), 'yyyy-MM-dd HH:mm:ss.SSS'), 'N'),
    COALESCE(CAST(TO_DATE('20240305', 'yyyyMMdd') AS STRING), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP('20240305102030', 'yyyyMMddHHmmss'), 'yyyy-MM-dd HH:mm:ss'), 'N'),
    COALESCE(DATE_FORMAT(TO_TIMESTAMP(s, f), f), 'N'),
    CAST(UNIX_TIMESTAMP('1970-01-01 08:00:01.001', 'yyyy-MM-dd HH:mm:ss.SSS') AS STRING))
FROM src;
