#!/usr/bin/env python3
"""The API side of the failover suite (tests/e2e/test_failover.sh).

  failover.py URL CA TOKEN pods PREFIX FIRST LAST CPU CLASS [TOLERATE_S]
        create pods PREFIX-FIRST .. PREFIX-LAST (cpu request CPU,
        PriorityClass CLASS; TOLERATE_S: they tolerate the suite's NoExecute
        taint for that many seconds) on 4 keep-alive connections
  failover.py URL CA TOKEN kubelet STOP
        the kubelet's part, until the file STOP exists: pods with a
        deletionTimestamp deleted for good (straight to the API server, so
        that the proxy sees the scheduler's DELETEs only)
  failover.py proxy-log LOG KILLS ACQUIRED
        what the fault proxy saw: binding POSTs and DELETEs per pod, and
        for every SIGKILL (KILLS: one "TIME" line each) the time to the
        first binding POST the API server accepted that the proxy read once
        a replica had acquired the Lease after the kill (ACQUIRED: the
        replicas' "successfully acquired lease" times, one a line); prints
        "key value" lines
  failover.py deletes LOG PREFIX START
        every pod PREFIX-* the proxy saw a DELETE for after START: "NAME
        TIME COUNT" (the first request's time, the DELETEs accepted)
"""
import http.client, json, ssl, statistics, sys, threading
from urllib.parse import urlparse

TAINT_KEY = "failover/noexec"


def create(url, ca, token, prefix, first, last, cpu, cls, tolerate):
    u = urlparse(url)
    ctx = ssl.create_default_context(cafile=ca)
    hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    names = list(range(first, last + 1))
    failed = []

    def worker(part):
        c = None
        for i in part:
            spec = {"priorityClassName": cls,
                    "containers": [{"name": "c", "image": "pause",
                                    "resources": {"requests": {"cpu": cpu, "memory": "16Mi"}}}]}
            if tolerate is not None:
                spec["tolerations"] = [{"key": TAINT_KEY, "operator": "Exists", "effect": "NoExecute",
                                        "tolerationSeconds": tolerate}]
            body = json.dumps({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": "%s-%d" % (prefix, i)}, "spec": spec})
            for _ in range(20):   # the API server may be busy: try again
                try:
                    if c is None:
                        c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=30)
                    c.request("POST", "/api/v1/namespaces/default/pods", body, hdr)
                    r = c.getresponse()
                    r.read()
                    if r.status in (201, 409):
                        break
                except (OSError, http.client.HTTPException):
                    if c is not None:
                        c.close()
                    c = None
            else:
                failed.append(i)

    ts = [threading.Thread(target=worker, args=(names[k::4],)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if failed:
        sys.exit("%d pods not created, e.g. %s-%d" % (len(failed), prefix, failed[0]))


def kubelet(url, ca, token, stop):
    import os, time
    u = urlparse(url)
    ctx = ssl.create_default_context(cafile=ca)
    hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
    c = None
    while not os.path.exists(stop):
        try:
            if c is None:
                c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=30)
            c.request("GET", "/api/v1/namespaces/default/pods", None, hdr)
            r = c.getresponse()
            items = json.loads(r.read()).get("items", []) if r.status == 200 else []
            for p in items:
                m = p["metadata"]
                if m.get("deletionTimestamp"):
                    c.request("DELETE", "/api/v1/namespaces/default/pods/" + m["name"],
                              json.dumps({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                                          "preconditions": {"uid": m["uid"]}}), hdr)
                    c.getresponse().read()
        except (OSError, http.client.HTTPException, ValueError):
            if c is not None:
                c.close()
            c = None
        time.sleep(0.5)


def deletes(log, prefix, start):
    """For pods named PREFIX-* with a DELETE through the proxy after START:
    "NAME TIME COUNT", the time the first request was read and the number
    of DELETEs the API server accepted (a DELETE sent again after a failed
    answer is no second deletion)."""
    first, ok = {}, {}
    with open(log) as f:
        for line in f:
            w = line.split()
            if len(w) < 5 or w[2] != "DELETE" or float(w[0]) < start:
                continue
            name = w[3].split("?")[0].split("/")[-1]
            if not name.startswith(prefix + "-"):
                continue
            if w[4] == "...":
                first.setdefault(name, float(w[0]))
            elif w[4] in ("200", "202"):
                ok[name] = ok.get(name, 0) + 1
    for name in sorted(first):
        print(name, "%.3f" % first[name], ok.get(name, 0))


def proxy_log(log, kills_file, acquired_file):
    binds_ok, binds_conflict, deletes_ok = {}, {}, {}
    sent = {}        # path -> time its request was read (the "..." line)
    first_ok = []    # send time of every accepted binding
    with open(log) as f:
        for line in f:
            w = line.split()
            if len(w) < 5 or w[2] not in ("POST", "DELETE"):
                continue
            t, cls, method, path, status = float(w[0]), w[1], w[2], w[3], w[4]
            if status == "...":
                sent[path] = t
                continue
            p = path.split("?")[0].split("/")
            if cls == "bind" and method == "POST":
                pod = p[-2]
                if status == "201":
                    binds_ok[pod] = binds_ok.get(pod, 0) + 1
                    first_ok.append(sent.get(path, t))
                elif status == "409":
                    binds_conflict[pod] = binds_conflict.get(pod, 0) + 1
            elif method == "DELETE" and len(p) >= 6 and p[-2] == "pods" and status in ("200", "202"):
                deletes_ok[p[-1]] = deletes_ok.get(p[-1], 0) + 1
    first_ok.sort()
    kills = [float(x.split()[0]) for x in open(kills_file) if x.strip()]
    acquired = sorted(float(x.split()[0]) for x in open(acquired_file) if x.strip())
    gaps = []
    for k in kills:
        # A bind the killed leader wrote just before its SIGKILL may be read
        # by the proxy just after it: the new leader's binds are those read
        # once it holds the Lease.
        a = [t for t in acquired if t > k]
        after = [t for t in first_ok if a and t >= a[0]]
        if after:
            gaps.append(after[0] - k)
    print("binds_ok", sum(binds_ok.values()))
    print("pods_bound", len(binds_ok))
    print("pods_bound_twice", sum(1 for v in binds_ok.values() if v > 1))
    print("bind_conflicts", sum(binds_conflict.values()))
    print("deletes_ok", sum(deletes_ok.values()))
    print("pods_deleted", len(deletes_ok))
    print("pods_deleted_twice", sum(1 for v in deletes_ok.values() if v > 1))
    print("twice_examples", ",".join(sorted([k for k, v in binds_ok.items() if v > 1] +
                                            [k for k, v in deletes_ok.items() if v > 1])[:5]) or "-")
    print("kills", len(kills))
    print("kill_to_bind_n", len(gaps))
    print("kill_to_bind_median", "%.2f" % statistics.median(gaps) if gaps else "-")
    print("kill_to_bind_worst", "%.2f" % max(gaps) if gaps else "-")
    print("kill_to_bind_all", " ".join("%.1f" % g for g in gaps) or "-")


if sys.argv[1] == "proxy-log":
    proxy_log(sys.argv[2], sys.argv[3], sys.argv[4])
elif sys.argv[1] == "deletes":
    deletes(sys.argv[2], sys.argv[3], float(sys.argv[4]))
elif sys.argv[4] == "kubelet":
    kubelet(*sys.argv[1:4], sys.argv[5])
elif sys.argv[4] == "pods":
    a = sys.argv
    create(a[1], a[2], a[3], a[5], int(a[6]), int(a[7]), a[8], a[9], int(a[10]) if len(a) > 10 else None)
else:
    sys.exit("unknown command")
