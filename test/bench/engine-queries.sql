-- The engine benchmark's queries (test/bench/run, "engine"): one per
-- line, each valid Spark SQL and valid SQLite SQL, run on the data of
-- engine-data.sql by sc-exec against sc-serve --database FILE and by the
-- sqlite3 CLI on the same file.  Lines starting with -- are comments.
SELECT count(*) AS n, sum(amount) AS total FROM orders
SELECT c.region, count(*) AS n, round(sum(o.amount), 2) AS total FROM orders o JOIN customers c ON o.cust_id = c.id GROUP BY c.region ORDER BY c.region
SELECT c.segment, round(avg(o.amount), 2) AS avg_amount FROM orders o JOIN customers c ON o.cust_id = c.id GROUP BY c.segment ORDER BY c.segment
SELECT cust_id, round(sum(amount), 2) AS s FROM orders GROUP BY cust_id ORDER BY s DESC, cust_id LIMIT 10
SELECT day, count(*) AS n, max(amount) AS top FROM orders GROUP BY day ORDER BY day
SELECT cust_id, id FROM (SELECT id, cust_id, row_number() OVER (PARTITION BY cust_id ORDER BY amount DESC, id) AS rn FROM orders) t WHERE rn = 1 ORDER BY cust_id LIMIT 20
SELECT cust_id, id, round(rs, 2) AS rs FROM (SELECT cust_id, id, sum(amount) OVER (PARTITION BY cust_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rs FROM orders) t ORDER BY rs DESC, id LIMIT 10
SELECT id, round(d, 2) AS d FROM (SELECT id, amount - lag(amount) OVER (PARTITION BY cust_id ORDER BY id) AS d FROM orders) t WHERE d > 9000 ORDER BY id LIMIT 20
WITH t AS (SELECT c.region, o.cust_id, sum(o.amount) AS s FROM orders o JOIN customers c ON o.cust_id = c.id GROUP BY c.region, o.cust_id) SELECT region, cust_id, r FROM (SELECT region, cust_id, rank() OVER (PARTITION BY region ORDER BY s DESC, cust_id) AS r FROM t) x WHERE r <= 3 ORDER BY region, r
WITH t AS (SELECT cust_id, sum(amount) AS s FROM orders GROUP BY cust_id) SELECT c.region, round(max(t.s), 2) AS m FROM t JOIN customers c ON c.id = t.cust_id GROUP BY c.region ORDER BY c.region
SELECT cust_id, count(*) AS n FROM orders WHERE day < 60 GROUP BY cust_id HAVING count(*) > 6 ORDER BY cust_id
SELECT c.region, count(DISTINCT o.product_id) AS products FROM orders o JOIN customers c ON o.cust_id = c.id GROUP BY c.region ORDER BY c.region
SELECT count(*) AS n FROM orders o JOIN customers c ON o.cust_id = c.id WHERE c.segment = 'retail' AND c.since > 2010
SELECT count(*) AS n FROM customers c LEFT JOIN orders o ON o.cust_id = c.id AND o.amount > 9990 WHERE o.id IS NULL
SELECT b, count(*) AS n FROM (SELECT CASE WHEN amount < 100 THEN 'small' WHEN amount < 1000 THEN 'mid' ELSE 'big' END AS b FROM orders) t GROUP BY b ORDER BY b
SELECT count(*) AS n FROM orders a JOIN orders b ON a.cust_id = b.cust_id AND a.day = b.day AND a.id < b.id
SELECT p.category, c.region, round(sum(o.qty * p.price), 2) AS revenue FROM orders o JOIN products p ON o.product_id = p.id JOIN customers c ON o.cust_id = c.id GROUP BY p.category, c.region ORDER BY p.category, c.region
SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 20
SELECT count(*) AS n FROM (SELECT cust_id FROM orders WHERE day < 100 UNION ALL SELECT cust_id FROM orders WHERE day >= 300) t
SELECT count(*) AS n FROM (SELECT DISTINCT cust_id, day FROM orders) t
SELECT id, round(m, 2) AS m FROM (SELECT id, avg(amount) OVER (PARTITION BY cust_id ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS m FROM orders) t ORDER BY m DESC, id LIMIT 10
SELECT c.region, c.segment, round(avg(o.amount), 2) AS a, min(o.amount) AS lo, max(o.amount) AS hi FROM orders o JOIN customers c ON o.cust_id = c.id GROUP BY c.region, c.segment ORDER BY c.region, c.segment
SELECT c.since, count(DISTINCT c.id) AS customers, sum(o.qty) AS qty FROM customers c JOIN orders o ON o.cust_id = c.id WHERE o.day BETWEEN 100 AND 200 GROUP BY c.since ORDER BY c.since
SELECT p.category, count(DISTINCT o.product_id) AS n FROM products p JOIN orders o ON o.product_id = p.id WHERE o.qty = 9 AND o.amount > 9000 GROUP BY p.category ORDER BY p.category
