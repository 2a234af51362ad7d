-- ORDER BY a processing-time attribute without LIMIT (not supported yet)
CREATE TABLE o (id INT, pt AS PROCTIME()) WITH ('connector' = 'values', 'data' = '+I[1]');
SELECT id FROM o ORDER BY pt;
