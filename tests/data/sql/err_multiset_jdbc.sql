-- the jdbc sink has no column type for a MULTISET: refused by its type at plan time
CREATE TABLE s (id INT, tags MULTISET<STRING>) WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:multiset_data/none.db', 'table-name' = 's');
INSERT INTO s VALUES (1, CAST(NULL AS MULTISET<STRING>));
