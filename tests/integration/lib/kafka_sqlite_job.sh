# shellcheck shell=bash
# kafka_sqlite_job TOPIC POLICY FORMAT_OPTION: writes TOPIC.sql, a job reading the topic
# (debezium-json with FORMAT_OPTION, e.g. 'debezium-json.schema-include' = 'true'; bounded at
# the latest offsets) into the SQLite table t of $tmp/TOPIC.db, which it creates; POLICY sets
# schema.change.behavior when not empty. Uses $BS (the broker) and $tmp.
kafka_sqlite_job() {
  cat >"$1.sql" <<SQL
SET 'execution.checkpointing.interval' = '100ms';
${2:+SET 'schema.change.behavior' = '$2';}
CREATE TABLE src (id INT NOT NULL, a STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'kafka', 'topic' = '$1', 'properties.bootstrap.servers' = '$BS',
      'properties.group.id' = 'g-$1', 'scan.startup.mode' = 'earliest-offset',
      'scan.bounded.mode' = 'latest-offset', 'format' = 'debezium-json',
      $3, 'schema.evolution.columns' = 'all');
CREATE TABLE dst (id INT NOT NULL, a STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:sqlite:$tmp/$1.db', 'table-name' = 't');
INSERT INTO dst SELECT * FROM src;
SQL
  sqlite3 "$tmp/$1.db" "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)"
}
