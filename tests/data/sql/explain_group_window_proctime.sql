-- group windows and window table functions on processing time (a column AS PROCTIME()): the
-- windows fire on the wall clock (integration/proctime_window.sh runs them)
CREATE TABLE user_actions (user_name STRING, data STRING, user_action_time AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT TUMBLE_START(user_action_time, INTERVAL '10' MINUTE), TUMBLE_PROCTIME(user_action_time, INTERVAL '10' MINUTE) AS pt, COUNT(DISTINCT user_name) FROM user_actions GROUP BY TUMBLE(user_action_time, INTERVAL '10' MINUTE);
SELECT window_start, window_end, COUNT(*) FROM TABLE(HOP(TABLE user_actions, DESCRIPTOR(user_action_time), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) GROUP BY window_start, window_end;
