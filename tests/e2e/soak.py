#!/usr/bin/env python3
"""The API side of the soak (tests/e2e/soak.sh) against a real kube-apiserver.

  soak.py URL CA TOKEN churn DIR SECONDS [NODE_EVERY POLICY_EVERY]
                                           churn until SECONDS have passed
                                           (or DIR/stop exists)
  soak.py URL CA TOKEN policy DIR N        write version N of DIR/soak.lua
  soak.py URL CA TOKEN count               "bound pending nodes"
  soak.py URL CA TOKEN check               pending pods that fit a node, and
                                           nodes whose bound pods exceed their
                                           allocatable; exit 1 when any

The churn plays users, a cluster operator, a kubelet-less node lifecycle and
a policy author at once, one step a second on one keep-alive connection:
pods created (some tolerating a taint, some with a nodeSelector) and
deleted, bound or pending; every NODE_EVERY s (10) a node action in turn: a
node added, cordoned, uncordoned, tainted, untainted, removed (its pods
deleted after it, as the pod garbage collector does); every POLICY_EVERY s
(30) the policy file
DIR/soak.lua replaced (a rename, as a ConfigMap update) by a new good
version or, in turn, a broken one. Pods left on a node that no longer
exists are deleted on every step. An API server that does not answer (it
is restarted during the soak) is waited for. DIR/churn.json says what was
done, rewritten each step."""
import http.client, json, os, random, ssl, sys, time
from urllib.parse import urlparse

url, ca, token, what = sys.argv[1:5]
u = urlparse(url)
ctx = ssl.create_default_context(cafile=ca)
HDR = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
TAINT = {"key": "soak/dedicated", "value": "x", "effect": "NoSchedule"}
BASE_NODES = 8       # never removed
MAX_EXTRA = 6        # nodes the churn adds on top
TARGET_PODS = 140    # a little more than the base nodes hold: some stay pending


class Api:
    """One keep-alive connection, made again after any failure."""

    def __init__(self):
        self.c = None

    def call(self, method, path, body=None, patch=False):
        hdr = dict(HDR)
        if patch:
            hdr["Content-Type"] = "application/strategic-merge-patch+json"
        try:
            if self.c is None:
                self.c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx, timeout=10)
            self.c.request(method, path, json.dumps(body) if body is not None else None, hdr)
            r = self.c.getresponse()
            data = r.read()
            return r.status, (json.loads(data) if data else None)
        except (OSError, http.client.HTTPException, ValueError):
            if self.c is not None:
                self.c.close()
            self.c = None
            return 0, None

    def items(self, path):
        st, body = self.call("GET", path)
        return body["items"] if st == 200 else None


def node_body(name, zone):
    a = {"cpu": "4", "memory": "8Gi", "pods": "20"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"soak/zone": zone}},
            "status": {"capacity": a, "allocatable": a}}


def pod_body(name, rng):
    spec = {"containers": [{"name": "c", "image": "pause", "resources": {"requests": {
        "cpu": rng.choice(["100m", "250m", "500m"]),
        "memory": rng.choice(["64Mi", "256Mi", "512Mi"])}}}]}
    r = rng.random()
    if r < 0.3:
        spec["tolerations"] = [dict(TAINT, operator="Equal")]
    elif r < 0.4:
        spec["nodeSelector"] = {"soak/zone": rng.choice(["a", "b", "c"])}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


GOOD = """-- soak policy, version %d: prefers some nodes over others, differently
-- in every version
local p = { name = "soak" }
local version = %d
function p.score(pod, node)
    return (#node.name * version + #pod.name) %% 101
end
return p
"""
BROKEN = [
    "local p = { name = \"soak\" }\nfunction p.score( return p\n",          # does not compile
    "error(\"soak: broken on purpose\")\n",                                 # fails when run
    "local p = { name = \"soak\" }\nwhile true do end\nreturn p\n",          # runs past its budget
    "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep(\"x\", 4096) .. i end\n",  # memory cap
]


def write_policy(d, n):
    """The n-th version: even ones good, odd ones broken (in turn)."""
    text = GOOD % (n, n) if n % 2 == 0 else BROKEN[(n // 2) % len(BROKEN)]
    tmp = os.path.join(d, "soak.lua.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, os.path.join(d, "soak.lua"))


class Churn:
    def __init__(self, d, node_every, policy_every):
        self.d = d
        self.node_every, self.policy_every = node_every, policy_every
        self.api = Api()
        self.rng = random.Random(1)
        self.seq = 0
        self.extra = []           # extra nodes, in the order added
        self.nodes = ["soak-base-%d" % i for i in range(BASE_NODES)]
        self.stats = {"pods_created": 0, "pods_deleted": 0, "nodes_added": 0, "nodes_removed": 0,
                      "cordons": 0, "uncordons": 0, "taints": 0, "untaints": 0, "orphans_deleted": 0,
                      "policy_good": 0, "policy_broken": 0, "api_failures": 0, "steps": 0}

    def ok(self, st):
        if st == 0 or st >= 500:
            self.stats["api_failures"] += 1
        return 200 <= st < 300

    def setup(self):
        for i, n in enumerate(self.nodes):
            self.api.call("POST", "/api/v1/nodes", node_body(n, "abc"[i % 3]))

    def delete_pod(self, name):
        st, _ = self.api.call("DELETE", "/api/v1/namespaces/default/pods/%s?gracePeriodSeconds=0" % name)
        return self.ok(st)

    def pods_step(self, pods, names):
        # Pods on a node that is gone: deleted, as the pod GC does.
        for p in pods:
            nn = p["spec"].get("nodeName")
            if nn and nn not in names and self.delete_pod(p["metadata"]["name"]):
                self.stats["orphans_deleted"] += 1
        bound = [p for p in pods if p["spec"].get("nodeName")]
        pending = [p for p in pods if not p["spec"].get("nodeName")]
        for k in range(4):
            if len(pods) + k >= TARGET_PODS:
                break
            self.seq += 1
            st, _ = self.api.call("POST", "/api/v1/namespaces/default/pods",
                                  pod_body("soak-%d" % self.seq, self.rng))
            if self.ok(st):
                self.stats["pods_created"] += 1
        victims = self.rng.sample(bound, min(2, len(bound)))
        if pending and self.rng.random() < 0.3:
            victims.append(self.rng.choice(pending))   # deleted while pending
        for p in victims:
            if self.delete_pod(p["metadata"]["name"]):
                self.stats["pods_deleted"] += 1

    def node_step(self, k, nodes):
        byname = {n["metadata"]["name"]: n for n in nodes}
        act = k % 6
        if act == 0 and len(self.extra) < MAX_EXTRA:
            self.seq += 1
            name = "soak-extra-%d" % self.seq
            st, _ = self.api.call("POST", "/api/v1/nodes", node_body(name, self.rng.choice("abc")))
            if self.ok(st):
                self.extra.append(name)
                self.stats["nodes_added"] += 1
        elif act in (1, 2):   # cordon one, uncordon one
            want = act == 1
            cands = [n for n in byname.values() if bool(n["spec"].get("unschedulable")) != want]
            if cands:
                n = self.rng.choice(cands)["metadata"]["name"]
                st, _ = self.api.call("PATCH", "/api/v1/nodes/" + n, {"spec": {"unschedulable": want}}, True)
                if self.ok(st):
                    self.stats["cordons" if want else "uncordons"] += 1
        elif act in (3, 4):   # taint one, untaint one
            want = act == 3
            cands = [n for n in byname.values() if bool(n["spec"].get("taints")) != want]
            if cands:
                n = self.rng.choice(cands)["metadata"]["name"]
                st, _ = self.api.call("PATCH", "/api/v1/nodes/" + n,
                                      {"spec": {"taints": [TAINT] if want else None}}, True)
                if self.ok(st):
                    self.stats["taints" if want else "untaints"] += 1
        elif act == 5 and self.extra:
            name = self.extra.pop(0)
            st, _ = self.api.call("DELETE", "/api/v1/nodes/" + name)
            if self.ok(st) or st == 404:
                self.stats["nodes_removed"] += 1
            else:
                self.extra.insert(0, name)

    def step(self, k):
        if k % self.policy_every == self.policy_every // 2:
            n = self.stats["policy_good"] + self.stats["policy_broken"] + 1
            write_policy(self.d, n)
            self.stats["policy_good" if n % 2 == 0 else "policy_broken"] += 1
        nodes = self.api.items("/api/v1/nodes")
        pods = self.api.items("/api/v1/namespaces/default/pods") if nodes is not None else None
        if nodes is None or pods is None:
            self.stats["api_failures"] += 1
            return
        self.pods_step(pods, {n["metadata"]["name"] for n in nodes})
        if k % self.node_every == 0:
            self.node_step(k // self.node_every, nodes)

    def save(self):
        tmp = os.path.join(self.d, "churn.json.tmp")
        with open(tmp, "w") as f:
            json.dump(self.stats, f)
        os.rename(tmp, os.path.join(self.d, "churn.json"))


def churn(d, seconds, node_every, policy_every):
    c = Churn(d, node_every, policy_every)
    c.setup()
    end = time.monotonic() + seconds
    k = 0
    while time.monotonic() < end and not os.path.exists(os.path.join(d, "stop")):
        t0 = time.monotonic()
        c.step(k)
        k += 1
        c.stats["steps"] = k
        c.save()
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))


def q(s):
    s = str(s)
    for suf, m in (("Ki", 1024), ("Mi", 1024**2), ("Gi", 1024**3), ("m", 0.001)):
        if s.endswith(suf):
            return float(s[:-len(suf)]) * m
    return float(s)


def requests(p):
    r = {"cpu": 0.0, "memory": 0.0, "pods": 1.0}
    for c in p["spec"]["containers"]:
        for k, v in c.get("resources", {}).get("requests", {}).items():
            if k in ("cpu", "memory"):
                r[k] += q(v)
    return r


def tolerates(p, taint):
    for t in p["spec"].get("tolerations") or []:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        if t.get("operator") == "Exists":
            if not t.get("key") or t["key"] == taint["key"]:
                return True
        elif t.get("key") == taint["key"] and t.get("value", "") == taint.get("value", ""):
            return True
    return False


def fits(p, n, used):
    """What the scheduler's filters ask of this soak's pods: room, the
    node not cordoned, its NoSchedule/NoExecute taints tolerated, the
    nodeSelector."""
    if n["spec"].get("unschedulable"):
        return False
    for t in n["spec"].get("taints") or []:
        if t["effect"] in ("NoSchedule", "NoExecute") and not tolerates(p, t):
            return False
    labels = n["metadata"].get("labels") or {}
    for k, v in (p["spec"].get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return False
    alloc = n["status"]["allocatable"]
    need = requests(p)
    return all(used[k] + need[k] <= q(alloc[k]) + 1e-9 for k in need)


def cluster(api):
    """Every node and every pod, or None when the API server does not answer."""
    nodes = api.items("/api/v1/nodes")
    pods = api.items("/api/v1/pods") if nodes is not None else None
    return None if pods is None else (nodes, pods)


def check(nodes, pods):
    byname = {n["metadata"]["name"]: n for n in nodes}
    used = {name: {"cpu": 0.0, "memory": 0.0, "pods": 0.0} for name in byname}
    bad = 0
    for p in pods:
        nn = p["spec"].get("nodeName")
        if nn in used:
            for k, v in requests(p).items():
                used[nn][k] += v
    for name, u in sorted(used.items()):
        alloc = byname[name]["status"]["allocatable"]
        over = [k for k in u if u[k] > q(alloc[k]) + 1e-9]
        if over:
            bad += 1
            print("# overcommitted: %s %s (allocatable %s)" % (name, u, alloc))
    for p in pods:
        if p["spec"].get("nodeName") or p["metadata"].get("deletionTimestamp"):
            continue
        where = [name for name, n in byname.items() if fits(p, n, used[name])]
        if where:
            bad += 1
            print("# pending but fits: %s on %s" % (p["metadata"]["name"], ", ".join(sorted(where)[:5])))
    return 1 if bad else 0


def count(nodes, pods):
    bound = sum(1 for p in pods if p["spec"].get("nodeName"))
    print(bound, len(pods) - bound, len(nodes))
    return 0


if what == "churn":
    churn(sys.argv[5], float(sys.argv[6]), *(int(a) for a in sys.argv[7:9]))
elif what == "policy":
    write_policy(sys.argv[5], int(sys.argv[6]))
elif what in ("check", "count"):
    c = cluster(Api())
    if c is None:   # (a count during the API server's restart shows dashes)
        print("# the API server did not answer" if what == "check" else "- - -")
        sys.exit(1 if what == "check" else 0)
    sys.exit((check if what == "check" else count)(*c))
else:
    sys.exit("unknown command " + what)
