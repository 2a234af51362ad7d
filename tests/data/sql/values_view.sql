-- A view over VALUES with a column list, read as any view.
CREATE VIEW v(id, name) AS VALUES (1, 'scooter');
SELECT name, id + 1 FROM v;
