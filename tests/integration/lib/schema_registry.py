#!/usr/bin/env python3
"""A Confluent Schema Registry for the tests: in memory, Python's standard library only.

Implements the documented REST endpoints the avro-confluent formats use
(https://docs.confluent.io/platform/current/schema-registry/develop/api.html):
  POST /subjects/{subject}/versions   register {"schema": "..."} -> {"id": N}
                                      (the same schema text keeps its id everywhere)
  GET  /schemas/ids/{id}              -> {"schema": "..."}; 404 error_code 40403
  GET  /subjects/{subject}/versions/latest -> {"subject", "version", "id", "schema"}; 404 40401
  POST /subjects/{subject}            look a schema up -> the same; 404 40401 / 40403
  GET  /subjects                      -> ["subject", ...]
Errors are {"error_code": N, "message": "..."} as the real registry sends them.

Why not Karapace (the issue's choice): it is on PyPI only, and PyPI is not
reachable from the build machines; this server speaks the same documented API.

Usage: schema_registry.py [--user USER:PASSWORD] [--first-id N]
Listens on a free loopback port and prints its URL (http://127.0.0.1:PORT) as
the first line of stdout; runs until killed.
"""
import argparse
import base64
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CT = "application/vnd.schemaregistry.v1+json"


class Registry:
    def __init__(self, first_id):
        self.lock = threading.Lock()
        self.by_id = {}       # id -> schema text
        self.id_of = {}       # canonical text -> id
        self.subjects = {}    # subject -> [id, ...] (versions in order)
        self.next_id = first_id

    @staticmethod
    def canonical(text):
        try:
            return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
        except ValueError:
            return None

    def register(self, subject, text):
        key = self.canonical(text)
        if key is None:
            return None
        with self.lock:
            sid = self.id_of.get(key)
            if sid is None:
                sid = self.next_id
                self.next_id += 1
                self.id_of[key] = sid
                self.by_id[sid] = text
            versions = self.subjects.setdefault(subject, [])
            if sid not in versions:
                versions.append(sid)
            return sid


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the tests read stdout
        pass

    def send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", CT)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, message):
        self.send(status, {"error_code": code, "message": message})

    def authorized(self):
        want = self.server.user
        if not want:
            return True
        got = self.headers.get("Authorization", "")
        if got == "Basic " + base64.b64encode(want.encode()).decode():
            return True
        self.error(401, 401, "Unauthorized")
        return False

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            return None

    def do_GET(self):
        if not self.authorized():
            return
        reg = self.server.registry
        m = re.fullmatch(r"/schemas/ids/(\d+)", self.path)
        if m:
            text = reg.by_id.get(int(m.group(1)))
            if text is None:
                return self.error(404, 40403, "Schema %s not found" % m.group(1))
            return self.send(200, {"schema": text})
        m = re.fullmatch(r"/subjects/([^/]+)/versions/latest", self.path)
        if m:
            versions = reg.subjects.get(m.group(1))
            if not versions:
                return self.error(404, 40401, "Subject '%s' not found." % m.group(1))
            sid = versions[-1]
            return self.send(200, {"subject": m.group(1), "version": len(versions), "id": sid,
                                   "schema": reg.by_id[sid]})
        if self.path == "/subjects":
            return self.send(200, sorted(reg.subjects))
        self.error(404, 404, "HTTP 404 Not Found")

    def do_POST(self):
        if not self.authorized():
            return
        reg = self.server.registry
        req = self.body()
        text = req.get("schema") if isinstance(req, dict) else None
        if not isinstance(text, str) or Registry.canonical(text) is None:
            return self.error(422, 42201, "Invalid schema")
        m = re.fullmatch(r"/subjects/([^/]+)/versions", self.path)
        if m:
            return self.send(200, {"id": reg.register(m.group(1), text)})
        m = re.fullmatch(r"/subjects/([^/]+)", self.path)
        if m:
            versions = reg.subjects.get(m.group(1))
            if not versions:
                return self.error(404, 40401, "Subject '%s' not found." % m.group(1))
            sid = reg.id_of.get(Registry.canonical(text))
            if sid not in versions:
                return self.error(404, 40403, "Schema not found")
            return self.send(200, {"subject": m.group(1), "version": versions.index(sid) + 1,
                                   "id": sid, "schema": reg.by_id[sid]})
        self.error(404, 404, "HTTP 404 Not Found")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--user", help="require basic auth USER:PASSWORD")
    ap.add_argument("--first-id", type=int, default=1)
    args = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.registry = Registry(args.first_id)
    srv.user = args.user
    print("http://127.0.0.1:%d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
