#!/usr/bin/env python3
"""Creates nodes or pods fast (threads with keep-alive connections) on a
kube-apiserver, or deletes every pod in `default`.
  live_load.py URL CA TOKEN nodes N | pods M | clear"""
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
elif what == "unbound":
    c = conn()
    c.request("GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D", None, hdr)
    print(len(json.loads(c.getresponse().read())["items"]))
