#!/usr/bin/env python3
"""A scripted Kubernetes API server for the command-line tests, on
127.0.0.1 only; not part of moonsched. It answers a GET of a core (v1)
collection with the items of that kind in a List file (JSON), any other
GET with an empty list, and a POST with 201 and an empty object.

  python3 tests/cli/list_api_server.py DIR LIST.json

listens on an ephemeral port, writes it to DIR/port and serves until
killed. Every request line goes to DIR/requests."""
import http.server
import json
import os
import sys


def main():
    out, items = sys.argv[1], json.load(open(sys.argv[2]))["items"]
    lists = {}
    for o in items:
        lists.setdefault("/api/v1/" + o["kind"].lower() + "s", []).append(o)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            with open(os.path.join(out, "requests"), "a") as f:
                f.write(f"GET {self.path}\n")
            path = self.path.split("?")[0]
            self.answer(200, {"kind": "List", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
                              "items": lists.get(path, [])})

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with open(os.path.join(out, "requests"), "a") as f:
                f.write(f"POST {self.path}\n")
            self.answer(201, {})

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(os.path.join(out, "port.tmp"), "w") as f:
        f.write(f"{srv.server_address[1]}\n")
    os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
