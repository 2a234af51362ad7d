-- a window function over a view without a window aggregation is not supported yet
CREATE TABLE Bid (bidtime TIMESTAMP(3), price DECIMAL(10, 2), WATERMARK FOR bidtime AS bidtime) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE VIEW v AS SELECT * FROM Bid WHERE price > 0;
SELECT window_start, SUM(price) FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
