-- Window TVFs on event time (Flink's window aggregation page: the Bid table and its results);
-- results once the watermark (bidtime - 1 s) passes a window's end, the rest at the end of input
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND) WITH ('connector' = 'values', 'data' =
  '+I[2020-04-15 08:05:00, 4.00, C, supplier1]; +I[2020-04-15 08:07:00, 2.00, A, supplier1]; +I[2020-04-15 08:09:00, 5.00, D, supplier2]; +I[2020-04-15 08:11:00, 3.00, B, supplier2]; +I[2020-04-15 08:13:00, 1.00, E, supplier1]; +I[2020-04-15 08:17:00, 6.00, F, supplier2]');
EXPLAIN SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
SELECT window_start, window_end, SUM(price) FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
SELECT window_start, window_end, SUM(price) FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
SELECT * FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES));
SELECT window_start, window_end, supplier_id, SUM(price) as price FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, supplier_id;
-- a late row (its window fired before it came) is dropped, and counted on stderr; the
-- watermark moves after each batch the source reads (here one row each), as Flink's after
-- each periodic watermark
SET 'execution.batch-size' = '1';
CREATE TABLE Late (t TIMESTAMP(3), v INT, WATERMARK FOR t AS t) WITH ('connector' = 'values',
  'data' = '+I[2020-04-15 08:01:00, 1]; +I[2020-04-15 08:12:00, 2]; +I[2020-04-15 08:02:00, 4]; +I[2020-04-15 08:14:00, 8]');
SELECT window_start, SUM(v) FROM TABLE(TUMBLE(TABLE Late, DESCRIPTOR(t), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
-- in a view: stored and read back
CREATE VIEW per_window AS SELECT window_start, window_end, SUM(price) AS total
  FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
  GROUP BY window_start, window_end;
SHOW CREATE VIEW per_window;
SELECT * FROM per_window WHERE total > 10;
