#!/usr/bin/env bash
# The jdbc sink with the MySQL dialect through the cdcflow binary, against a real MariaDB
# 10.11 started here (tests/servers/mariadb.sh) and checked with the mariadb client: a full
# changelog into an auto-created table, idempotence, every type round trip, a hostile
# identifier and hostile strings, a NOT NULL violation's error text, a server restart
# mid-stream that the job rides out, lock wait retries, large flushes as multi-row
# statements, and auto-created tables keyed on STRING columns. A server that cannot be
# started is a failure.
set -uo pipefail
# shellcheck source=lib/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"
bin=${CDCFLOW_BIN:?CDCFLOW_BIN must point at the cdcflow binary}
src=${CDC_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
cd "$tmp" || exit 1

# shellcheck source=../servers/mariadb.sh
source "$src/tests/servers/mariadb.sh"
if ! my_start cdcflow; then
  bad "could not start MariaDB"
  my_stop
  rm -rf "$tmp"
  echo "jdbc_mysql: $pass passed, $fail failed"
  exit 1
fi
trap 'my_stop; rm -rf "$tmp"' EXIT
url=$MY_URL
q() { my_sql -N -B -r -e "$1" 2>&1; }

# 1. a full changelog lands in an auto-created table; the password is never printed
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
expected="1	aa	1.75
2	bb	20.00
3	it's; \"x\"	NULL"
query="SELECT id, name, price FROM \`out\` ORDER BY id"
actual=$(q "$query")
if [[ $actual == "$expected" ]]; then ok; else
  bad "table contents"
  diff <(echo "$expected") <(echo "$actual")
fi
if [[ $(q "SELECT engine FROM information_schema.tables WHERE table_schema = 'cdcflow' AND table_name = 'out'") == InnoDB ]]; then
  ok
else bad "the auto-created table is not InnoDB"; fi
# 2. the same changes again leave the same table (idempotent upserts); mariadb: urls too
sed -e "s|jdbc:mysql:|jdbc:mariadb:|" upsert.sql >upsert2.sql
"$bin" run upsert2.sql >/dev/null 2>err.txt || cat err.txt
actual=$(q "$query")
if [[ $actual == "$expected" ]]; then ok; else bad "second run changed the table"; fi
# a failed login is reported without the password
sed -e 's/hunter2/wrongpass/' upsert.sql >badpw.sql
if "$bin" run badpw.sql >out.txt 2>err.txt; then bad "a wrong password connected"; else ok; fi
if grep -q "Access denied for user 'writer'" err.txt && ! grep -q wrongpass out.txt err.txt; then
  ok
else
  bad "the connection failure is not reported, or names the password"
  cat err.txt
fi

# 3. every type round trip
cat >types.sql <<SQL
CREATE TABLE src (id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,
    f FLOAT, d DOUBLE, dec DECIMAL(20, 4), c CHAR(3), vc VARCHAR(10), s STRING, bin BYTES,
    dt DATE, tm TIME(3), ts TIMESTAMP(3), tsl TIMESTAMP_LTZ(6),
    PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values',
    'data' = '+I[1, true, -128, -32768, -2147483648, -9223372036854775808, 1.5, 3.141592653589793, -1234567890123456.7890, ab, hello, ''ünï€ode ✓ 😀'', x''00ff41'', 2020-07-30, 10:08:22.123, 2020-07-30 10:08:22.123, 2020-07-30 10:08:22.123456];
              +I[2, false, 127, 32767, 2147483647, 9223372036854775807, -0.25, 1.0E300, 0.0001, xyz, '''', '''', x'''', 1970-01-01, 00:00:00, 1969-12-31 23:59:59.999, 1970-01-01 00:00:00];
              +I[3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null]');
CREATE TABLE types (id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT,
    f FLOAT, d DOUBLE, dec DECIMAL(20, 4), c CHAR(3), vc VARCHAR(10), s STRING, bin BYTES,
    dt DATE, tm TIME(3), ts TIMESTAMP(3), tsl TIMESTAMP_LTZ(6),
    PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'types', 'sink.auto-create-table' = 'true');
INSERT INTO types SELECT * FROM src;
SQL
if "$bin" run types.sql >out.txt 2>err.txt; then ok; else
  bad "types pipeline exited non-zero"
  cat err.txt
fi
expected='1	1	-128	-32768	-2147483648	-9223372036854775808	1.5	3.141592653589793	-1234567890123456.7890	ab	hello	ünï€ode ✓ 😀	00FF41	2020-07-30	10:08:22.123	2020-07-30 10:08:22.123	2020-07-30 10:08:22.123456
2	0	127	32767	2147483647	9223372036854775807	-0.25	1e300	0.0001	xyz			0	1970-01-01	00:00:00.000	1969-12-31 23:59:59.999	1970-01-01 00:00:00.000000
3	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL	NULL'
actual=$(q "SELECT id, b, ti, si, i, bi, f, d, \`dec\`, c, vc, s, IF(bin IS NULL, NULL, CONCAT(HEX(bin), IF(LENGTH(bin) = 0, '0', ''))), dt, tm, ts, tsl FROM types ORDER BY id")
if [[ $actual == "$expected" ]]; then ok; else
  bad "type round trip"
  diff <(echo "$expected") <(echo "$actual")
fi
expected='id	int(11)
b	tinyint(1)
ti	tinyint(4)
si	smallint(6)
i	int(11)
bi	bigint(20)
f	float
d	double
dec	decimal(20,4)
c	char(3)
vc	varchar(10)
s	longtext
bin	longblob
dt	date
tm	time(3)
ts	datetime(3)
tsl	datetime(6)'
actual=$(q "SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = 'cdcflow' AND table_name = 'types' ORDER BY ordinal_position")
if [[ $actual == "$expected" ]]; then ok; else
  bad "auto-created column types"
  diff <(echo "$expected") <(echo "$actual")
fi

# 4. a hostile identifier and hostile strings stored verbatim
cat >hostile.sql <<SQL
CREATE TABLE src (\`we\`\`ird "col"?\` INT NOT NULL, v STRING, PRIMARY KEY (\`we\`\`ird "col"?\`) NOT ENFORCED) WITH (
    'connector' = 'values',
    'data' = '+I[1, ''x''''); DROP TABLE \`out\`; --'']; +I[2, ''? \\\\'''' \\\\\\\\ "q" %s \\\\0'']; +I[3, ''	tab and
newline'']');
CREATE TABLE dst (\`we\`\`ird "col"?\` INT NOT NULL, v STRING, PRIMARY KEY (\`we\`\`ird "col"?\`) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'Rob''s \`table\`?', 'sink.auto-create-table' = 'true');
INSERT INTO dst SELECT * FROM src;
SQL
if "$bin" run hostile.sql >out.txt 2>err.txt; then ok; else
  bad "hostile pipeline exited non-zero"
  cat err.txt
fi
expected="1	x'); DROP TABLE \`out\`; --
2	? \\\\' \\\\\\\\ \"q\" %s \\\\0
3		tab and
newline"
actual=$(q "SELECT \`we\`\`ird \"col\"?\`, v FROM \`Rob's \`\`table\`\`?\` ORDER BY 1")
if [[ $actual == "$expected" ]]; then ok; else
  bad "hostile identifier and strings"
  diff <(echo "$expected") <(echo "$actual")
fi
if [[ $(q "SELECT count(*) FROM \`out\`") == 3 ]]; then ok; else bad "table out was touched"; fi

# 5. a NOT NULL violation fails the job with the table, the row and the server's message
q 'CREATE TABLE strict (id INT PRIMARY KEY, name TEXT NOT NULL) ENGINE=InnoDB' || bad "CREATE strict"
cat >notnull.sql <<SQL
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'data' = '+I[1, a]; +I[7, null]');
CREATE TABLE dst (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'table-name' = 'strict', 'password' = 'hunter2');
INSERT INTO dst SELECT * FROM src;
SQL
if "$bin" run notnull.sql >out.txt 2>err.txt; then bad "a NOT NULL violation did not fail the job"; else ok; fi
if grep -q 'table "strict"' err.txt && grep -q 'row: +I\[7, null\]' err.txt &&
  grep -q "Column 'name' cannot be null" err.txt && grep -q 'error 1048' err.txt; then ok; else
  bad "the NOT NULL violation's message lacks the table, the row or the server's message"
  cat err.txt
fi
if grep -q hunter2 out.txt err.txt; then bad "the password was printed in an error"; else ok; fi
if [[ $(q "SELECT count(*) FROM strict") == 0 ]]; then ok; else
  bad "a failed flush left rows behind"
fi

# 6. a server restart mid-stream: the job reconnects, replays and ends with every row
cat >restart.sql <<SQL
CREATE TABLE gen (id BIGINT NOT NULL, v STRING) WITH (
    'connector' = 'datagen', 'rows-per-second' = '4000',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20000',
    'fields.v.length' = '8');
CREATE TABLE dst (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'restarted', 'sink.auto-create-table' = 'true', 'sink.max-retries' = '10');
INSERT INTO dst SELECT * FROM gen;
SQL
"$bin" run restart.sql >restart.out 2>restart.err &
job=$!
sleep 2
if kill -0 "$job" 2>/dev/null; then ok; else bad "the job ended before the restart"; fi
before=$(q "SELECT count(*) FROM restarted")
if my_restart; then ok; else bad "the server restart failed"; fi
if kill -0 "$job" 2>/dev/null; then ok; else bad "the job ended during the restart"; fi
if wait "$job"; then ok; else
  bad "the job did not survive the server restart"
  tail -20 restart.err
fi
if [[ $before =~ ^[0-9]+$ && $before -gt 0 && $before -lt 20000 ]]; then ok; else
  bad "rows before the restart: $before (expected some, not all)"
fi
actual=$(q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM restarted")
if [[ $actual == "20000	20000	1	20000" ]]; then ok; else
  bad "rows after the restart: $actual (expected 20000 20000 1 20000)"
fi
if grep -q hunter2 restart.out restart.err; then bad "the password was printed"; else ok; fi

# 7. lock wait timeouts (1205) are retried: a row held by another session for 3 s
q "SET GLOBAL innodb_lock_wait_timeout = 1; CREATE TABLE locked (id INT PRIMARY KEY, v TEXT) ENGINE=InnoDB; INSERT INTO locked VALUES (1, 'old')" ||
  bad "CREATE locked"
cat >locked.sql <<SQL
CREATE TABLE src (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'data' = '+I[1, new]');
CREATE TABLE dst (id INT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'locked', 'sink.max-retries' = 'RETRIES');
INSERT INTO dst SELECT * FROM src;
SQL
hold_lock() {
  my_sql -e "BEGIN; SELECT * FROM locked WHERE id = 1 FOR UPDATE; DO SLEEP($1); COMMIT;" >/dev/null 2>&1 &
  holder=$!
  sleep 0.5
}
sed 's/RETRIES/0/' locked.sql >locked0.sql
hold_lock 3
if "$bin" run locked0.sql >out.txt 2>err.txt; then bad "a lock wait timeout without retries did not fail"; else ok; fi
if grep -q 'Lock wait timeout exceeded' err.txt && grep -q 'error 1205' err.txt &&
  grep -q 'after 1 attempts' err.txt; then ok; else
  bad "the lock wait timeout's message"
  cat err.txt
fi
wait "$holder"
sed 's/RETRIES/10/' locked.sql >locked10.sql
hold_lock 3
if "$bin" run locked10.sql >out.txt 2>err.txt; then ok; else
  bad "a lock wait timeout was not retried"
  cat err.txt
fi
wait "$holder"
if [[ $(q "SELECT v FROM locked") == new ]]; then ok; else bad "the retried upsert is missing"; fi
# credentials in the url are refused without echoing them
sed "s|jdbc:mysql://|jdbc:mysql://writer:secretu@|" upsert.sql >urlpw.sql
if "$bin" run urlpw.sql >out.txt 2>err.txt; then bad "credentials in the url were accepted"; else ok; fi
if grep -q 'no credentials in the url' err.txt && ! grep -q secretu out.txt err.txt; then ok; else
  bad "a password from the url was printed"
  cat err.txt
fi

# run_ok FILE LABEL / run_fails FILE LABEL: the job in FILE must succeed / fail
run_ok() {
  if "$bin" run "$1" >out.txt 2>err.txt; then ok; else
    bad "$2"
    cat err.txt
  fi
}
run_fails() { if "$bin" run "$1" >out.txt 2>err.txt; then bad "$2"; else ok; fi; }
# same EXPECTED ACTUAL LABEL
same() {
  if [[ $2 == "$1" ]]; then ok; else
    bad "$3"
    diff <(echo "$1") <(echo "$2") | head
  fi
}

# 8. a flush of many keys goes as multi-row statements (text INSERT/DELETE, no prepared
#    statement executed): upserts, deletes, a delete then an insert of one key, a composite
#    key, strings with quotes and backslashes, all in one flush
data=""
declare -A model
for i in $(seq 1 600); do
  data+="+I[$i, $((i % 3)), 'v$i it''s \\ x', $i.5]; "
  model[$i]="$i	$((i % 3))	v$i it's \\ x	$i.5"
done
for i in $(seq 4 4 600); do
  data+="+U[$i, $((i % 3)), 'u$i', $i.25]; "
  model[$i]="$i	$((i % 3))	u$i	$i.25"
done
for i in $(seq 5 5 600); do
  data+="-D[$i, $((i % 3)), 'x', 0.0]; "
  unset "model[$i]"
done
for i in $(seq 10 10 600); do
  data+="+I[$i, $((i % 3)), 'again$i', 1.0]; "
  model[$i]="$i	$((i % 3))	again$i	1"
done
expected=$(for i in $(seq 1 600); do [[ -n ${model[$i]:-} ]] && echo "${model[$i]}"; done)
sqlq() { printf '%s' "${1//\'/\'\'}"; } # quoted again for the SQL string literal
cat >bulk.sql <<SQL
CREATE TABLE src (a INT NOT NULL, b INT NOT NULL, v STRING, w DOUBLE, PRIMARY KEY (a, b) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UA,D', 'data' = '$(sqlq "$data")');
CREATE TABLE dst (a INT NOT NULL, b INT NOT NULL, v STRING, w DOUBLE, PRIMARY KEY (a, b) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'bulk', 'sink.auto-create-table' = 'true', 'sink.buffer-flush.max-rows' = '5000');
INSERT INTO dst SELECT * FROM src;
SQL
stat() { q "SHOW GLOBAL STATUS LIKE '$1'" | cut -f2; }
exec0=$(stat Com_stmt_execute)
run_ok bulk.sql "multi-row pipeline exited non-zero"
same "$expected" "$(q "SELECT a, b, v, w FROM bulk ORDER BY a")" "multi-row flush: table contents"
if [[ $(stat Com_stmt_execute) == "$exec0" ]]; then ok; else
  bad "the flush of 600 keys ran prepared statements, not multi-row ones"
fi
# a NOT NULL violation inside a multi-row flush still names the row (replayed row by row)
data=""
for i in $(seq 100 400); do
  if [[ $i == 250 ]]; then data+="+I[$i, null]; "; else data+="+I[$i, n$i]; "; fi
done
cat >bulknull.sql <<SQL
CREATE TABLE src (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'values', 'data' = '$data');
CREATE TABLE dst (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'table-name' = 'strict',
    'password' = 'hunter2', 'sink.buffer-flush.max-rows' = '5000');
INSERT INTO dst SELECT * FROM src;
SQL
run_fails bulknull.sql "a NOT NULL violation in a large flush did not fail"
if grep -q 'row: +I\[250, null\]' err.txt && grep -q 'error 1048' err.txt; then ok; else
  bad "the NOT NULL violation in a large flush does not name the row"
  cat err.txt
fi
if [[ $(q "SELECT count(*) FROM strict") == 0 ]]; then ok; else
  bad "a failed large flush left rows behind"
fi

# 9. auto-created tables keyed on STRING columns: an unbounded string key becomes
#    VARCHAR(255) (an index cannot hold LONGTEXT), a declared VARCHAR(n <= 768) key keeps n;
#    upserts and deletes by those keys work, and a longer key value fails with a clear error
cat >strkey.sql <<SQL
CREATE TABLE src (region STRING, code VARCHAR(500), n INT NOT NULL, note STRING,
    PRIMARY KEY (region, code, n) NOT ENFORCED) WITH (
    'connector' = 'values', 'changelog-mode' = 'I,UA,D',
    'data' = '+I[eu, a-1, 1, first]; +I[eu, a-2, 1, x]; +I[us, ''ü😀'', 2, y]; +U[eu, a-1, 1, second]; -D[eu, a-2, 1, x]');
CREATE TABLE dst (region STRING, code VARCHAR(500), n INT NOT NULL, note STRING,
    PRIMARY KEY (region, code, n) NOT ENFORCED) WITH (
    'connector' = 'jdbc', 'url' = '$url', 'username' = 'writer', 'password' = 'hunter2',
    'table-name' = 'strkey', 'sink.auto-create-table' = 'true');
INSERT INTO dst SELECT * FROM src;
SQL
run_ok strkey.sql "string-keyed pipeline exited non-zero"
expected='region	varchar(255)	PRI
code	varchar(500)	PRI
n	int(11)	PRI
note	longtext	'
same "$expected" "$(q "SELECT column_name, column_type, column_key FROM information_schema.columns WHERE table_schema = 'cdcflow' AND table_name = 'strkey' ORDER BY ordinal_position")" \
  "auto-created string key column types"
expected="eu	a-1	1	second
us	ü😀	2	y"
same "$expected" "$(q "SELECT region, code, n, note FROM strkey ORDER BY region, code")" \
  "string-keyed table contents"
long=$(printf 'k%.0s' $(seq 1 256))
sed -e "s/'data' = '.*'/'data' = '+I[$long, b, 3, too long]'/" strkey.sql >strlong.sql
run_fails strlong.sql "a 256-character key value was accepted"
if grep -q 'table "strkey"' err.txt && grep -q "Data too long for column 'region'" err.txt &&
  grep -q 'holds at most 255 characters' err.txt && grep -q "row: +I\[$long, b, 3, too long\]" err.txt; then
  ok
else
  bad "the error for a too long key value"
  cat err.txt
fi

echo "jdbc_mysql: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
