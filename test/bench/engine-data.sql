-- The engine benchmark's data (test/bench/run, "engine"): 20,000
-- customers, 500 products and 400,000 orders, made by the sqlite3 CLI.
-- Deterministic: every value is a function of the row number.
CREATE TABLE customers (id INTEGER PRIMARY KEY, region TEXT NOT NULL,
    segment TEXT NOT NULL, since INTEGER NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, category TEXT NOT NULL,
    price REAL NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, cust_id INTEGER NOT NULL,
    product_id INTEGER NOT NULL, day INTEGER NOT NULL, qty INTEGER NOT NULL,
    amount REAL NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO customers SELECT i,
    CASE i % 5 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east'
        WHEN 3 THEN 'west' ELSE 'centre' END,
    CASE (i * 7) % 3 WHEN 0 THEN 'retail' WHEN 1 THEN 'trade' ELSE 'online' END,
    2000 + (i * 13) % 25 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO products SELECT i, 'cat' || (i % 12), 1 + ((i * 37) % 1000) / 10.0
    FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400000)
INSERT INTO orders SELECT i, 1 + (i * 7919) % 20000, 1 + (i * 104729) % 500,
    (i * 31) % 365, 1 + (i * 17) % 9, ((i * 2654435761) % 1000000) / 100.0
    FROM n;
