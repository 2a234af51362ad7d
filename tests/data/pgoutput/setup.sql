CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE t_types (
  id int PRIMARY KEY,
  c_bool boolean, c_int2 smallint, c_int4 integer, c_int8 bigint, c_oid oid,
  c_float4 real, c_float8 double precision, c_num numeric(10,2), c_num_free numeric,
  c_char char(4), c_varchar varchar(10), c_text text, c_name name, c_bytea bytea,
  c_date date, c_time time, c_time3 time(3), c_ts timestamp, c_ts0 timestamp(0),
  c_tstz timestamptz, c_interval interval, c_timetz timetz,
  c_bit1 bit(1), c_bit bit(10), c_varbit varbit,
  c_json json, c_jsonb jsonb, c_uuid uuid, c_xml xml, c_inet inet, c_cidr cidr,
  c_macaddr macaddr, c_money money, c_point point,
  c_int4_arr int[], c_text_arr text[], c_num_arr numeric(5,1)[], c_date_arr date[],
  c_mood mood, c_range int4range, c_tsvector tsvector);
CREATE TABLE t_toast (id int PRIMARY KEY, small int, big text);
ALTER TABLE t_toast ALTER COLUMN big SET STORAGE EXTERNAL;
CREATE TABLE t_full (id int PRIMARY KEY, v text);
ALTER TABLE t_full REPLICA IDENTITY FULL;
CREATE PUBLICATION pub FOR ALL TABLES;
SELECT 'slot' FROM pg_create_logical_replication_slot('slot', 'pgoutput');
