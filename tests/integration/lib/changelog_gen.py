#!/usr/bin/env python3
"""Random consistent changelogs for tests/integration/stateful_sqlite.sh.

  changelog_gen.py gen SEED CHANGES DIR
      writes DIR/sources.sql: `values` tables orders, products, shipments and details with
      PRIMARY KEYs, 'changelog-mode' = 'I,UB,UA,D' and CHANGES changes spread over them
      (+I of an absent key, -U/+U or -D of the current row of a present key: keys come and go,
      columns take NULLs and repeated values); and DIR/final.sql: the same tables in SQLite
      with the final rows of every source (what an exact materialized result is computed on).
  changelog_gen.py materialize < PRINT_OUTPUT
      applies the changes a `print` sink wrote (+I[..], -U[..], +U[..], -D[..]) to a multiset
      and prints the final rows as `a|b|NULL`, sorted; a -U or -D of a row that is not there
      is an error (exit 1), as is any line that is not a change.
"""
import random
import sys

# name, columns (name, SQL type, generator kind), key column
TABLES = [
    ("orders", [("order_id", "INT NOT NULL", "key"), ("region", "STRING NOT NULL", "region"),
                ("customer", "STRING", "customer"), ("product_id", "INT", "product"),
                ("qty", "INT", "qty"), ("price", "BIGINT", "price")], 60),
    ("products", [("id", "INT NOT NULL", "key"), ("name", "STRING", "pname"),
                  ("weight", "INT", "qty")], 10),
    ("shipments", [("shipment_id", "INT NOT NULL", "key"), ("order_id", "INT", "order"),
                   ("origin", "STRING", "customer")], 80),
    ("details", [("order_id", "INT NOT NULL", "key"), ("note", "STRING", "pname"),
                 ("prio", "INT", "qty")], 60),
]


def value(rng, kind):
    if kind == "region":
        return rng.choice(["eu", "us", "asia"])
    if kind == "customer":
        return rng.choice(["ann", "bob", "cy", "dee", None])
    if kind == "product":  # 11 and 12 are never products: no match
        return None if rng.random() < 0.1 else rng.randint(1, 12)
    if kind == "order":  # 61..65 are never orders
        return None if rng.random() < 0.1 else rng.randint(1, 65)
    if kind == "qty":
        return None if rng.random() < 0.15 else rng.randint(-3, 20)
    if kind == "price":
        return None if rng.random() < 0.1 else rng.choice([0, 5, 50, 99, 100, 250, 999])
    if kind == "pname":
        return rng.choice(["apple", "pear", "plum", None])
    raise ValueError(kind)


def text(v):
    return "null" if v is None else str(v)


def gen(seed, changes, out):
    rng = random.Random(seed)
    state = {t[0]: {} for t in TABLES}
    log = {t[0]: [] for t in TABLES}
    for _ in range(changes):
        name, cols, nkeys = rng.choice(TABLES)
        cur = state[name]
        key = rng.randint(1, nkeys)
        row = lambda: [key] + [value(rng, kind) for _, _, kind in cols[1:]]
        if key not in cur:
            new = row()
            cur[key] = new
            log[name].append("+I[%s]" % ", ".join(map(text, new)))
            continue
        old = cur[key]
        if rng.random() < 0.65:
            new = list(old)
            # change one or two columns; sometimes none (an update to the same row)
            for _ in range(rng.randint(0, 2)):
                c = rng.randint(1, len(cols) - 1)
                new[c] = value(rng, cols[c][2])
            log[name].append("-U[%s]" % ", ".join(map(text, old)))
            log[name].append("+U[%s]" % ", ".join(map(text, new)))
            cur[key] = new
        else:
            log[name].append("-D[%s]" % ", ".join(map(text, old)))
            del cur[key]
    with open(out + "/sources.sql", "w") as f:
        for name, cols, _ in TABLES:
            f.write("CREATE TABLE %s (%s, PRIMARY KEY (%s) NOT ENFORCED) WITH (\n"
                    "  'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D',\n"
                    "  'data' = '%s');\n" % (name, ", ".join("%s %s" % (c, t) for c, t, _ in cols),
                                            cols[0][0], "; ".join(log[name])))
    with open(out + "/final.sql", "w") as f:
        for name, cols, _ in TABLES:
            f.write("CREATE TABLE %s (%s, PRIMARY KEY (%s));\n" % (
                name, ", ".join("%s %s" % (c, "INTEGER" if "INT" in t else "TEXT")
                                for c, t, _ in cols), cols[0][0]))
            for r in cur_rows(state[name]):
                f.write("INSERT INTO %s VALUES (%s);\n" % (
                    name, ", ".join("NULL" if v is None else
                                    ("'%s'" % v if isinstance(v, str) else str(v)) for v in r)))


def cur_rows(cur):
    return [cur[k] for k in sorted(cur)]


def materialize():
    rows = {}
    for n, line in enumerate(sys.stdin, 1):
        line = line.rstrip("\n")
        if len(line) < 4 or line[:2] not in ("+I", "-U", "+U", "-D") or line[2] != "[" or \
                line[-1] != "]":
            sys.exit("line %d is not a change: %r" % (n, line))
        row = "|".join("NULL" if v == "null" else v for v in line[3:-1].split(", "))
        if line[0] == "+":
            rows[row] = rows.get(row, 0) + 1
        elif rows.get(row, 0) == 0:
            sys.exit("line %d: %s retracts a row that is not in the result" % (n, line))
        else:
            rows[row] -= 1
    for row in sorted(r for r, c in rows.items() for _ in range(c)):
        print(row)


if __name__ == "__main__":
    if sys.argv[1:2] == ["gen"] and len(sys.argv) == 5:
        gen(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1:] == ["materialize"]:
        materialize()
    else:
        sys.exit(__doc__)
