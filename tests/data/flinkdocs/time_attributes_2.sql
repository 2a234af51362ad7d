-- Flink documentation snippet, kept verbatim below the header.
-- source: https://nightlies.apache.org/flink/flink-docs-stable/docs/dev/table/concepts/time_attributes/ (Time Attributes)
-- doc-error: the computed column time_ltz is defined from itself (TO_TIMESTAMP_LTZ(time_ltz, 3);
-- ts is meant): Flink refuses it too.
-- changed: "..." in the WITH clause filled in.

CREATE TABLE user_actions (
  user_name STRING,
  data STRING,
  ts BIGINT,
  time_ltz AS TO_TIMESTAMP_LTZ(time_ltz, 3),
  -- declare time_ltz as event time attribute and use 5 seconds delayed watermark strategy
  WATERMARK FOR time_ltz AS time_ltz - INTERVAL '5' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10'
);

SELECT TUMBLE_START(time_ltz, INTERVAL '10' MINUTE), COUNT(DISTINCT user_name)
FROM user_actions
GROUP BY TUMBLE(time_ltz, INTERVAL '10' MINUTE);
