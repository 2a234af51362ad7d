-- datagen does not generate MULTISET values, nested ones included: refused by name
CREATE TABLE g (id INT, r ROW<tags INT MULTISET>) WITH ('connector' = 'datagen', 'number-of-rows' = '2');
SELECT * FROM g;
