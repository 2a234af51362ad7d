-- the filesystem source's file metadata (Flink's file.path, file.name, file.size,
-- file.modification-time), read-only columns beside the physical ones (data: unnest_data/orders)
CREATE TABLE o (id INT, p STRING METADATA FROM 'file.path' VIRTUAL,
  `file.name` STRING NOT NULL METADATA VIRTUAL, sz BIGINT METADATA FROM 'file.size' VIRTUAL,
  mt TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL)
WITH ('connector' = 'filesystem', 'path' = 'unnest_data/orders', 'format' = 'json');
-- the absolute path ends in the file's name; the time is not checked beyond being set
SELECT id, `file.name`, sz, p LIKE '/%/unnest_data/orders/part-0.json' AS abs_path,
  mt IS NOT NULL AS has_time
FROM o WHERE id < 3;
