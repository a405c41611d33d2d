#!/usr/bin/env python3
"""Creates nodes or pods fast (threads with keep-alive connections) on a
kube-apiserver, deletes every pod in `default`, or waits until none there
is unbound.
  live_load.py URL CA TOKEN nodes N | pods M | clear | wait-bound"""
import http.client, json, ssl, sys, threading, time
from urllib.parse import urlparse

url, ca, token, what = sys.argv[1:5]
n = int(sys.argv[5]) if len(sys.argv) > 5 else 0
u = urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

def conn():
    return http.client.HTTPSConnection(u.hostname, u.port, context=ctx)

def node(i):
    a = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    return "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "node-%d" % i, "labels": {"topology.kubernetes.io/zone": "z%d" % (i % 3)}},
        "status": {"capacity": a, "allocatable": a}}

def pod(i):
    return "/api/v1/namespaces/default/pods", {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod-%d" % i},
        "spec": {"containers": [{"name": "c", "image": "pause",
                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}}

def run(make):
    idx = iter(range(n)); lock = threading.Lock(); errs = []
    def w():
        c = conn()
        while True:
            with lock:
                i = next(idx, None)
            if i is None: return
            path, body = make(i)
            c.request("POST", path, json.dumps(body), hdr)
            r = c.getresponse(); r.read()
            if r.status >= 300 and r.status != 409: errs.append(r.status)
    ts = [threading.Thread(target=w) for _ in range(32)]
    for t in ts: t.start()
    for t in ts: t.join()
    if errs: sys.exit("errors: %s" % errs[:5])

if what == "nodes": run(node)
elif what == "pods": run(pod)
elif what == "clear":
    c = conn()
    # A collection delete can stop short on a loaded server: asked again
    # every few seconds until nothing is left.
    for i in range(10**6):
        if i % 10 == 0:
            c.request("DELETE", "/api/v1/namespaces/default/pods?gracePeriodSeconds=0", None, hdr); c.getresponse().read()
        c.request("GET", "/api/v1/namespaces/default/pods?limit=1", None, hdr)
        r = json.loads(c.getresponse().read())
        if not r["items"]: break
        time.sleep(0.5)
elif what == "wait-bound":
    # Prints "ready" once it has listed (its watch starts from that list's
    # resourceVersion, so no binding after "ready" is missed), then, when no pod in `default` is
    # left without a node, the time (seconds since the epoch) the last one
    # was seen bound: a watch sees it as it happens, where polling a LIST
    # would add up to its period and its own load on the server.
    c = conn()
    c.request("GET", "/api/v1/namespaces/default/pods", None, hdr)
    lst = json.loads(c.getresponse().read())
    unbound = {p["metadata"]["name"] for p in lst["items"] if not p["spec"].get("nodeName")}
    rv = lst["metadata"]["resourceVersion"]
    print("ready", flush=True)
    while unbound:
        c = conn()
        c.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + rv, None, hdr)
        r = c.getresponse()
        for line in r:
            ev = json.loads(line)
            o = ev["object"]
            if ev["type"] == "ERROR":
                sys.exit("watch: %s" % o.get("message"))
            rv = o["metadata"]["resourceVersion"]
            if ev["type"] == "DELETED" or o["spec"].get("nodeName"):
                unbound.discard(o["metadata"]["name"])
            if not unbound:
                break
    print("%.6f" % time.time(), flush=True)
