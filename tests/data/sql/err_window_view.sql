-- a window function over a view takes the window_time of a window aggregation in it; a view
-- without one is not supported yet, nor another column of an aggregating view
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), WATERMARK FOR bidtime AS bidtime) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE VIEW w AS SELECT window_start AS s, window_end AS e, SUM(price) AS p FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end;
SELECT window_start, SUM(p) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(e), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
