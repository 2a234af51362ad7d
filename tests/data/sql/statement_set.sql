-- two INSERTs run as one job
SET 'execution.batch-size' = '2';
CREATE TABLE gen (id INT NOT NULL) WITH (
    'connector' = 'datagen', 'fields.id.kind' = 'sequence',
    'fields.id.start' = '1', 'fields.id.end' = '3');
CREATE TABLE a (id INT NOT NULL) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE b (id BIGINT NOT NULL) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
    INSERT INTO a SELECT * FROM gen;
    INSERT INTO b SELECT id FROM gen;
END;
