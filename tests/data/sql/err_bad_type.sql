CREATE TABLE gen (
    id INT,
    price DECIMAL(40, 2)
) WITH ('connector' = 'datagen');
