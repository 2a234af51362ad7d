#!/usr/bin/env bash
# The jdbc sink with the PostgreSQL dialect through the cdcflow binary, against a real
# PostgreSQL 15 started here (tests/servers/postgres.sh) and checked with psql: a full
# changelog into an auto-created table, idempotence, every type round trip, a hostile
# identifier and hostile strings, a NOT NULL violation's error text, and a server restart
# mid-stream that the job rides out. A server that cannot be started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/postgres.sh
source "$src/tests/servers/postgres.sh"
if ! pg_start cdcflow; then
  bad "could not start PostgreSQL 15"
  pg_stop
  rm -rf "$tmp"
  echo "jdbc_postgres: $pass passed, $fail failed"
  exit 1
fi
trap 'pg_stop; rm -rf "$tmp"' EXIT
url=$PG_URL

# 1. a full changelog lands in an auto-created table; the password is never printed
pg_psql -c "CREATE ROLE writer LOGIN PASSWORD 'hunter2' SUPERUSER" || bad "CREATE ROLE"
cat >upsert.sql <<SQL
CREATE TABLE src (id INT NOT NULL, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',
    'data' = '+I[1, a, 1.50]; +I[2, b, 2.00]; -U[1, a, 1.50]; +U[1, aa, 1.75]; -D[2, b, 2.00]; +I[3, ''it''''s; "x"'', null]; +I[2, bb, 20.00]; +I[4, d, 4.00]; -D[4, d, 4.00]');
CREATE TABLE out (id INT NOT NULL, name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'table-name' = 'out',
    'sink.auto-create-table' = 'true', 'username' = 'writer', 'password' = 'hunter2');
EXPLAIN INSERT INTO out SELECT * FROM src;
INSERT INTO out SELECT * FROM src;
SQL
if "$bin" run upsert.sql >out.txt 2>err.txt; then ok; else
  bad "upsert pipeline exited non-zero"
  cat err.txt
fi
if grep -q hunter2 out.txt err.txt; then bad "the password was printed"; else ok; fi
expected='1|aa|1.75
2|bb|20.00
3|it'"'"'s; "x"|NULL'
query="SELECT id, name, coalesce(price::text, 'NULL') FROM out ORDER BY id"
actual=$(pg_psql -At -c "$query" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else
  bad "table contents"
  diff <(echo "$expected") <(echo "$actual")
fi
# 2. the same changes again leave the same table (idempotent upserts)
"$bin" run upsert.sql >/dev/null 2>err.txt || cat err.txt
actual=$(pg_psql -At -c "$query" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else bad "second run changed the table"; fi
# a failed connection is reported without the password
sed -e 's/hunter2/wrongpass/' -e "s/'writer'/'nobody_here'/" upsert.sql >badpw.sql
if "$bin" run badpw.sql >out.txt 2>err.txt; then bad "an unknown role connected"; else ok; fi
if grep -q 'role "nobody_here" does not exist' err.txt && ! grep -q wrongpass out.txt err.txt; then
  ok
else
  bad "the connection failure is not reported, or names the password"
  cat err.txt
fi
# a password in the url's query is not printed either
sed -e "s|'$url'|'$url?password=secretq'|" badpw.sql >badpw2.sql
if "$bin" run badpw2.sql >out.txt 2>err.txt; then bad "an unknown role connected"; else ok; fi
if grep -q 'does not exist' err.txt && ! grep -q secretq out.txt err.txt; then ok; else
  bad "a password from the url was printed"
  cat err.txt
fi

# 3. every type round trip
cat >types.sql <<SQL
CREATE TABLE src (id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,
    f FLOAT, d DOUBLE, dec DECIMAL(20, 4), c CHAR(3), vc VARCHAR(10), s STRING, bin BYTES,
    dt DATE, tm TIME(3), ts TIMESTAMP(3), tsl TIMESTAMP_LTZ(6),
    PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values',
    'data' = '+I[1, true, -128, -32768, -2147483648, -9223372036854775808, 1.5, 3.141592653589793, -1234567890123456.7890, ab, hello, ''ünï€ode ✓'', x''00ff41'', 2020-07-30, 10:08:22.123, 2020-07-30 10:08:22.123, 2020-07-30 10:08:22.123456];
              +I[2, false, 127, 32767, 2147483647, 9223372036854775807, -0.25, 1.0E300, 0.0001, xyz, '''', '''', x'''', 1970-01-01, 00:00:00, 1969-12-31 23:59:59.999, 1970-01-01 00:00:00];
              +I[3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null]');
CREATE TABLE types (id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,
    f FLOAT, d DOUBLE, dec DECIMAL(20, 4), c CHAR(3), vc VARCHAR(10), s STRING, bin BYTES,
    dt DATE, tm TIME(3), ts TIMESTAMP(3), tsl TIMESTAMP_LTZ(6),
    PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'postgres', 'table-name' = 'types', 'sink.auto-create-table' = 'true');
INSERT INTO types SELECT * FROM src;
SQL
if "$bin" run types.sql >out.txt 2>err.txt; then ok; else
  bad "types pipeline exited non-zero"
  cat err.txt
fi
expected='1|t|-128|-32768|-2147483648|-9223372036854775808|1.5|3.141592653589793|-1234567890123456.7890|ab |hello|ünï€ode ✓|\x00ff41|2020-07-30|10:08:22.123|2020-07-30 10:08:22.123|2020-07-30 10:08:22.123456+00
2|f|127|32767|2147483647|9223372036854775807|-0.25|1e+300|0.0001|xyz|||\x|1970-01-01|00:00:00|1969-12-31 23:59:59.999|1970-01-01 00:00:00+00
3||||||||||||||||'
actual=$(pg_psql -At -c "SELECT * FROM types ORDER BY id" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else
  bad "type round trip"
  diff <(echo "$expected") <(echo "$actual")
fi
expected='id|integer
b|boolean
ti|smallint
si|smallint
i|integer
bi|bigint
f|real
d|double precision
dec|numeric(20,4)
c|character(3)
vc|character varying(10)
s|text
bin|bytea
dt|date
tm|time(3) without time zone
ts|timestamp(3) without time zone
tsl|timestamp(6) with time zone'
actual=$(pg_psql -At -c "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'types'::regclass AND attnum > 0 ORDER BY attnum" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else
  bad "auto-created column types"
  diff <(echo "$expected") <(echo "$actual")
fi

# 4. a hostile identifier and hostile strings stored verbatim
cat >hostile.sql <<SQL
CREATE TABLE src (\`we"ird col\` INT NOT NULL, v STRING, PRIMARY KEY (\`we"ird col\`) NOT ENFORCED) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''x''''); DROP TABLE out; --'']; +I[2, ''\$1 \$\$ "q" \\\\ %s'']; +I[3, ''	tab and
newline'']');
CREATE TABLE dst (\`we"ird col\` INT NOT NULL, v STRING, PRIMARY KEY (\`we"ird col\`) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'postgres', 'table-name' = 'Rob''s "table"', 'sink.auto-create-table' = 'true');
INSERT INTO dst SELECT * FROM src;
SQL
if "$bin" run hostile.sql >out.txt 2>err.txt; then ok; else
  bad "hostile pipeline exited non-zero"
  cat err.txt
fi
expected="1|x'); DROP TABLE out; --
2|\$1 \$\$ \"q\" \\\\ %s
3|	tab and
newline"
actual=$(pg_psql -At -c "SELECT \"we\"\"ird col\", v FROM \"Rob's \"\"table\"\"\" ORDER BY 1" 2>&1)
if [[ $actual == "$expected" ]]; then ok; else
  bad "hostile identifier and strings"
  diff <(echo "$expected") <(echo "$actual")
fi
if [[ $(pg_psql -At -c "SELECT count(*) FROM out" 2>&1) == 3 ]]; then ok; else bad "table out was touched"; fi

# 5. a NOT NULL violation fails the job with the table, the row and the server's message
pg_psql -c 'CREATE TABLE strict (id INT PRIMARY KEY, name TEXT NOT NULL)' || bad "CREATE strict"
cat >notnull.sql <<SQL
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'data' = '+I[1, a]; +I[7, null]');
CREATE TABLE dst (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'postgres', 'table-name' = 'strict', 'password' = 'hunter2');
INSERT INTO dst SELECT * FROM src;
SQL
if "$bin" run notnull.sql >out.txt 2>err.txt; then bad "a NOT NULL violation did not fail the job"; else ok; fi
if grep -q 'table "strict"' err.txt && grep -q 'row: +I\[7, null\]' err.txt &&
  grep -q 'null value in column "name" of relation "strict" violates not-null constraint' err.txt &&
  grep -q 'SQLSTATE 23502' err.txt; then ok; else
  bad "the NOT NULL violation's message lacks the table, the row or the server's message"
  cat err.txt
fi
if grep -q hunter2 out.txt err.txt; then bad "the password was printed in an error"; else ok; fi
if [[ $(pg_psql -At -c "SELECT count(*) FROM strict" 2>&1) == 0 ]]; then ok; else
  bad "a failed flush left rows behind"
fi

# 6. a server restart mid-stream: the job reconnects, replays and ends with every row
cat >restart.sql <<SQL
CREATE TABLE gen (id BIGINT NOT NULL, v STRING) WITH (
    'connector' = 'datagen', 'rows-per-second' = '4000',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20000',
    'fields.v.length' = '8');
CREATE TABLE dst (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'postgres', 'table-name' = 'restarted',
    'sink.auto-create-table' = 'true', 'sink.max-retries' = '10');
INSERT INTO dst SELECT * FROM gen;
SQL
"$bin" run restart.sql >restart.out 2>restart.err &
job=$!
sleep 2
if kill -0 "$job" 2>/dev/null; then ok; else bad "the job ended before the restart"; fi
if pg_restart; then ok; else bad "pg_ctl restart failed"; fi
if kill -0 "$job" 2>/dev/null; then ok; else bad "the job ended during the restart"; fi
if wait "$job"; then ok; else
  bad "the job did not survive the server restart"
  tail -20 restart.err
fi
# the writer really reconnected: a cdcflow session began after the restarted server came up
if awk '/ready to accept connections/ { n = 0 } /application_name=cdcflow/ { n++ } END { exit !n }' \
  "$PG_DIR/server.log"; then ok; else bad "no reconnection after the restart in the server log"; fi
actual=$(pg_psql -At -c "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM restarted" 2>&1)
if [[ $actual == "20000|20000|1|20000" ]]; then ok; else
  bad "rows after the restart: $actual (expected 20000|20000|1|20000)"
fi

echo "jdbc_postgres: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
