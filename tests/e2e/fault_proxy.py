#!/usr/bin/env python3
"""A fault-injecting proxy for the end-to-end suites: plain HTTP/1.1 on a
loopback port towards `moonsched run` (its kubeconfig points at
http://127.0.0.1:PORT with a bearer token, which is passed through), TLS
towards the real kube-apiserver.

    fault_proxy.py --upstream https://127.0.0.1:6443 --ca ca.crt \
        --control faults.txt --log proxy.log --port-file port

The control file is read again at every request, so faults are switched
on and off at run time by rewriting it. One fault per line:

    CLASS FAULT [ARG]

CLASS is the request's class: list (GET of a collection), watch (GET with
watch=true), bind (POST .../binding), other; or all. FAULT is one of

    cut          watch: half of the next event line, then the connection
                 closes; others: half of the body, then it closes
    gone         watch: 410 Gone; list: 410 Expired on a LIST with
                 continue (LISTs without are forwarded with limit=2 and
                 no resourceVersion, so that etcd, not the watch cache,
                 answers them in pages that need a continue)
    gone-event   watch: 200 and an ERROR event with code 410
    429 [S]      429 Too Many Requests with Retry-After: S (default 1)
    500, 503     that status, with a Status body
    reset        the connection is reset once the request is read
    hang [S]     the request is held S seconds (default 65), then sent on
    truncate     the body cut in half (watch: the next event line), sent as
                 if whole
    trickle [B]  the answer B bytes (default 4) per 100 ms while the fault
                 stays on, the rest at once after

Each request is logged as: time class method path status fault.
"""
import argparse
import http.client
import json
import os
import socket
import ssl
import struct
import threading
import time
import urllib.parse

CLASSES = ("list", "watch", "bind", "other")
GONE = "too old resource version (injected by the fault proxy)"


def status_body(code, reason, message):
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()


def gone_event():
    """The ERROR event a server sends when a watch's resourceVersion is gone."""
    return json.dumps({"type": "ERROR", "object": json.loads(status_body(410, "Expired", GONE))}).encode() + b"\n"


class Proxy:
    def __init__(self, args):
        u = urllib.parse.urlsplit(args.upstream)
        self.host, self.port = u.hostname, u.port or 443
        self.ctx = ssl.create_default_context(cafile=args.ca)
        self.control = args.control
        self.log_file = open(args.log, "a", buffering=1)
        self.log_lock = threading.Lock()

    def faults(self):
        """CLASS -> (fault, arg) as the control file says now."""
        out = {}
        try:
            with open(self.control) as f:
                for line in f:
                    w = line.split()
                    if len(w) < 2 or w[0].startswith("#"):
                        continue
                    for c in (CLASSES if w[0] == "all" else (w[0],)):
                        out[c] = (w[1], w[2] if len(w) > 2 else None)
        except OSError:
            pass
        return out

    def fault_on(self, cls, fault):
        return self.faults().get(cls, (None,))[0] == fault

    def log(self, cls, method, path, status, fault):
        with self.log_lock:
            self.log_file.write("%.3f %s %s %s %s %s\n" % (time.time(), cls, method, path, status, fault or "-"))


def classify(method, target):
    path, _, query = target.partition("?")
    q = urllib.parse.parse_qs(query)
    if method == "POST" and path.endswith("/binding"):
        return "bind"
    if method != "GET":
        return "other"
    if q.get("watch", [""])[0] in ("true", "1"):
        return "watch"
    segs = [s for s in path.split("/") if s]
    if len(segs) >= 2 and segs[0] == "api":
        rest = segs[2:]
    elif len(segs) >= 3 and segs[0] == "apis":
        rest = segs[3:]
    else:
        return "other"
    if len(rest) >= 3 and rest[0] == "namespaces":
        rest = rest[2:]
    return "list" if len(rest) == 1 else "other"


class Conn:
    """One connection from the client: requests in turn (keep-alive)."""

    def __init__(self, proxy, sock):
        self.p, self.sock = proxy, sock
        self.rf = sock.makefile("rb")
        self.up = None

    def upstream(self):
        if self.up is None:
            self.up = http.client.HTTPSConnection(self.p.host, self.p.port, context=self.p.ctx, timeout=600)
        return self.up

    def read_request(self):
        line = self.rf.readline(65536)
        if not line:
            return None
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers = []
        while True:
            h = self.rf.readline(65536).decode("latin-1")
            if h in ("\r\n", "\n", ""):
                break
            k, _, v = h.partition(":")
            headers.append((k.strip(), v.strip()))
        hd = {k.lower(): v for k, v in headers}
        if hd.get("expect", "").lower() == "100-continue":
            self.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = self.rf.read(int(hd.get("content-length", "0"))) if "content-length" in hd else None
        return method, target, headers, body

    def send_head(self, status, ctype, length=None, extra=()):
        reason = http.client.responses.get(status, "Unknown")
        h = ["HTTP/1.1 %d %s" % (status, reason), "Content-Type: " + ctype]
        h.append("Content-Length: %d" % length if length is not None else "Transfer-Encoding: chunked")
        h.extend("%s: %s" % kv for kv in extra)
        self.sock.sendall(("\r\n".join(h) + "\r\n\r\n").encode("latin-1"))

    def send_status(self, code, reason, message, extra=()):
        body = status_body(code, reason, message)
        self.send_head(code, "application/json", len(body), extra)
        self.sock.sendall(body)

    def chunk(self, data):
        if data:
            self.sock.sendall(b"%x\r\n" % len(data) + data + b"\r\n")

    def reset(self):
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def forward(self, method, target, headers, body):
        skip = ("host", "connection", "accept-encoding", "expect", "content-length", "transfer-encoding")
        hs = {k: v for k, v in headers if k.lower() not in skip}
        up = self.upstream()
        try:
            up.request(method, target, body=body, headers=hs)
            return up.getresponse()
        except (OSError, http.client.HTTPException):
            # the upstream connection went (the apiserver restarted): once more
            self.up.close()
            self.up = None
            up = self.upstream()
            up.request(method, target, body=body, headers=hs)
            return up.getresponse()

    def trickle(self, cls, data, n):
        """data B bytes per 100 ms while the fault is on; False: closed."""
        i = 0
        while i < len(data):
            if not self.p.fault_on(cls, "trickle"):
                self.chunk(data[i:])
                return
            self.chunk(data[i:i + n])
            i += n
            time.sleep(0.1)

    def serve_one(self):
        req = self.read_request()
        if req is None:
            return False
        method, target, headers, body = req
        cls = classify(method, target)
        fault, arg = self.p.faults().get(cls, (None, None))
        if fault == "gone" and cls == "list" and "continue=" not in target:
            u = urllib.parse.urlsplit(target)
            q = [(k, v) for k, v in urllib.parse.parse_qsl(u.query) if k not in ("limit", "resourceVersion")] + [("limit", "2")]
            target = u.path + "?" + urllib.parse.urlencode(q)
            fault = "gone(limit=2)"
        self.p.log(cls, method, target, "...", fault)
        if fault == "reset":
            self.reset()
            return False
        if fault in ("429", "500", "503"):
            code = int(fault)
            extra = (("Retry-After", arg or "1"),) if code == 429 else ()
            self.send_status(code, {429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}[code],
                             "injected by the fault proxy", extra)
            return True
        if fault == "gone" and cls in ("watch", "list"):
            self.send_status(410, "Expired", GONE)
            return True
        if fault == "gone-event" and cls == "watch":
            self.send_head(200, "application/json")
            self.chunk(gone_event())
            self.sock.sendall(b"0\r\n\r\n")
            return True
        if fault == "hang":
            time.sleep(float(arg or 65))
        resp = self.forward(method, target, headers, body)
        self.p.log(cls, method, target, resp.status, fault)
        extra = [(k, v) for k, v in resp.getheaders() if k.lower() in ("retry-after", "audit-id")]
        ctype = resp.getheader("Content-Type", "application/json")
        if cls == "watch" and resp.status == 200:
            return self.stream(cls, resp, ctype, extra)
        data = resp.read()
        if fault == "cut":
            self.send_head(resp.status, ctype, len(data), extra)
            self.sock.sendall(data[:len(data) // 2])
            self.reset()
            return False
        if fault == "truncate":
            data = data[:len(data) // 2]
        if fault == "trickle":
            self.send_head(resp.status, ctype, None, extra)
            self.trickle(cls, data, int(arg or 4))
            self.sock.sendall(b"0\r\n\r\n")
            return True
        self.send_head(resp.status, ctype, len(data), extra)
        self.sock.sendall(data)
        return True

    def drop_upstream(self):
        """The upstream answer is left unread: its connection goes."""
        self.up.close()
        self.up = None

    def stream(self, cls, resp, ctype, extra):
        """A watch: its lines as they come. The fault is looked up again at
        each block (a watch lasts minutes), and applies to the next line."""
        self.send_head(200, ctype, None, extra)
        pending = b""
        while True:
            data = resp.read1(65536)
            if not data:   # the server ended the watch
                self.chunk(pending)
                self.sock.sendall(b"0\r\n\r\n")
                return True
            pending += data
            fault, arg = self.p.faults().get(cls, (None, None))
            if fault in ("cut", "truncate", "gone", "gone-event", "reset", "429", "500", "503"):
                if b"\n" not in pending:
                    continue   # until a whole line is in
                self.p.log(cls, "GET", "(stream)", 200, fault)
            if fault in ("gone", "gone-event"):
                self.chunk(gone_event())
                break
            if fault == "reset":
                self.reset()
                self.drop_upstream()
                return False
            if fault in ("429", "500", "503"):
                break   # the stream ends; the next watch meets the status
            if fault in ("cut", "truncate"):
                line, _, rest = pending.partition(b"\n")
                self.chunk(line[:len(line) // 2] + (b"\n" if fault == "truncate" else b""))
                if fault == "cut":
                    self.reset()
                    self.drop_upstream()
                    return False
                pending = rest
            if fault == "trickle":
                self.trickle(cls, pending, int(arg or 4))
            else:
                self.chunk(pending)
            pending = b""
        self.sock.sendall(b"0\r\n\r\n")
        self.drop_upstream()
        return True

    def run(self):
        try:
            while self.serve_one():
                pass
        except (OSError, ValueError, http.client.HTTPException):
            pass
        finally:
            for c in (self.up, self.rf, self.sock):
                try:
                    if c:
                        c.close()
                except OSError:
                    pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--control", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    args = ap.parse_args()
    p = Proxy(args)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(tmp, args.port_file)
    while True:
        s, _ = ls.accept()
        threading.Thread(target=Conn(p, s).run, daemon=True).start()


if __name__ == "__main__":
    main()
