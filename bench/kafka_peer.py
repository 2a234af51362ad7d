#!/usr/bin/python3
"""The Python side of bench/kafka_pg.sh and bench/kafka_mysql.sh (issue 17). Not a test.

  kafka_peer.py peer DB DSN TABLE BOOTSTRAP TOPIC GROUP
      The hand-written consumer a user would write: confluent-kafka (Debian's
      python3-confluent-kafka) + json + the database's driver. Batches of up to 10,000
      messages from consume(); the last change per key; upserts (psycopg2 execute_values
      ON CONFLICT DO UPDATE, MySQLdb executemany ON DUPLICATE KEY UPDATE, sqlite3
      executemany ON CONFLICT) and deletes by key; the database commit, then
      consumer.commit(asynchronous=False) (enable.auto.commit=false): offsets are committed
      only after the rows before them are durable. Runs until SIGTERM.
  kafka_peer.py watch DB DSN TABLE EXPECT TIME_FILE -- CMD...
      Starts CMD under /usr/bin/time -v (into TIME_FILE), polls TABLE every 10 ms until it
      has a row (the time to the first applied row), then until it has as many rows as
      EXPECT and no difference from it (EXCEPT both ways); then sends CMD SIGTERM and
      waits. Prints "first_ms done_s identical" (identical: yes/no, from a last full
      comparison after CMD ended). Gives up after WATCH_TIMEOUT seconds (default 300).

DB is pg, mysql or sqlite; DSN is a libpq string, "host:port:user:password:db" or a path.
"""
import json
import os
import signal
import subprocess
import sys
import time

COLS = ("id", "name", "description", "weight", "qty")


def connect(db, dsn):
    if db == "pg":
        import psycopg2
        return psycopg2.connect(dsn)
    if db == "mysql":
        import MySQLdb
        host, port, user, password, name = dsn.split(":", 4)
        return MySQLdb.connect(host=host, port=int(port), user=user, passwd=password, db=name)
    import sqlite3
    return sqlite3.connect(dsn, timeout=30)


def peer(db, dsn, table, bootstrap, topic, group):
    from confluent_kafka import Consumer
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    conn = connect(db, dsn)
    cur = conn.cursor()
    sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in COLS[1:])
    if db == "pg":
        from psycopg2.extras import execute_values
        upsert = f"INSERT INTO {table} ({', '.join(COLS)}) VALUES %s ON CONFLICT (id) DO UPDATE SET {sets}"
        delete = f"DELETE FROM {table} WHERE id IN (VALUES %s)"

        def apply(ups, dels):
            if dels:
                execute_values(cur, delete, dels, page_size=10000)
            if ups:
                execute_values(cur, upsert, ups, page_size=10000)
    else:
        if db == "mysql":
            sets = ", ".join(f"{c} = VALUES({c})" for c in COLS[1:])
            upsert = (f"INSERT INTO {table} ({', '.join(COLS)}) VALUES (%s, %s, %s, %s, %s) "
                      f"ON DUPLICATE KEY UPDATE {sets}")
            delete = f"DELETE FROM {table} WHERE id = %s"
        else:
            upsert = (f"INSERT INTO {table} ({', '.join(COLS)}) VALUES (?, ?, ?, ?, ?) "
                      f"ON CONFLICT (id) DO UPDATE SET {sets}")
            delete = f"DELETE FROM {table} WHERE id = ?"

        def apply(ups, dels):
            if dels:
                cur.executemany(delete, dels)
            if ups:
                cur.executemany(upsert, ups)

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    while not stop:
        msgs = consumer.consume(num_messages=10000, timeout=0.1)
        if not msgs:
            continue
        last = {}
        for m in msgs:
            if m.error() or m.value() is None:
                continue
            c = json.loads(m.value())
            if c["op"] == "d":
                last[c["before"]["id"]] = None
            else:
                a = c["after"]
                last[a["id"]] = (a["id"], a["name"], a["description"], a["weight"], a["qty"])
        # one statement may not touch a row twice: the last change per key, deletes first
        apply([r for r in last.values() if r is not None],
              [(k,) for k, r in last.items() if r is None])
        conn.commit()
        consumer.commit(asynchronous=False)
    consumer.close()
    conn.close()


def differs(cur, table, expect):
    cur.execute(f"SELECT (SELECT count(*) FROM (SELECT * FROM {table} EXCEPT SELECT * FROM {expect}) a)"
                f" + (SELECT count(*) FROM (SELECT * FROM {expect} EXCEPT SELECT * FROM {table}) b)")
    return cur.fetchone()[0] != 0


def watch(db, dsn, table, expect, time_file, cmd):
    conn = connect(db, dsn)
    if db == "pg":
        conn.autocommit = True
    elif db == "mysql":
        conn.autocommit(True)
    else:
        conn.isolation_level = None
    cur = conn.cursor()
    cur.execute(f"SELECT count(*) FROM {expect}")
    want = cur.fetchone()[0]
    limit = float(os.environ.get("WATCH_TIMEOUT", "300"))
    t0 = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-v", "-o", time_file] + cmd,
                            stdout=subprocess.DEVNULL, stderr=open(time_file + ".err", "w"))
    first = done = None
    while time.perf_counter() - t0 < limit and proc.poll() is None:
        if first is None:
            cur.execute(f"SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT 1) x")
            if cur.fetchone()[0]:
                first = time.perf_counter() - t0
            time.sleep(0.01)
            continue
        cur.execute(f"SELECT count(*) FROM {table}")
        if cur.fetchone()[0] == want and not differs(cur, table, expect):
            done = time.perf_counter() - t0
            break
        time.sleep(0.05)
    # to CMD, not to GNU time (which would die of it without writing its figures)
    try:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        kids = []
    for k in kids:
        os.kill(k, signal.SIGTERM)
    rc = proc.wait()
    if done is None:
        sys.stderr.write(f"watch: {cmd[0]} exited with {rc} or timed out; its stderr is in "
                         f"{time_file}.err\n")
    same = "yes" if done is not None and not differs(cur, table, expect) else "no"
    print(f"{-1 if first is None else first * 1000:.0f} {-1 if done is None else done:.3f} {same}")
    conn.close()


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "peer" and len(a) == 7:
        peer(*a[1:])
    elif a and a[0] == "watch" and len(a) > 7 and a[6] == "--":
        watch(a[1], a[2], a[3], a[4], a[5], a[7:])
    else:
        sys.exit(__doc__)
