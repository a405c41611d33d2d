#!/usr/bin/env python3
"""Random preemption-heavy clusters for the differential suite
(tests/cli/test_policy_differential.sh): a native rule and its Lua twin
(tests/cli/data/differential/RULE.lua) must schedule and preempt alike.

  differential.py gen RULE SEED DIR   writes DIR/native.yaml, DIR/twin.yaml
                                      (the clusters), DIR/native-config.yaml
                                      and DIR/twin-config.yaml
  differential.py compare A.json B.json
                                      prints "placements P preemptions Q
                                      unschedulable U": how many pods were
                                      placed differently, how many
                                      preemptions (preemptor, node, victims)
                                      one run has and the other not, how
                                      many pods only one run left pending

The twin cluster carries the rule in annotations where the native one uses
spec fields the twin's policy cannot see, or the same spec with the native
plugin disabled at Filter in the twin's configuration.
"""
import json
import os
import random
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "differential")

# Native plugins the twin's configuration disables at Filter (the twin
# reads the same fields).
DISABLED = {
    "taints": "TaintToleration",
    "unschedulable": "NodeUnschedulable",
    "headroom": "NodeResourcesFit",
}
POOLS = ["a", "b", "c"]
ZONES = ["z0", "z1", "z2"]


def node(r, i, rule):
    labels = {"pool": r.choice(POOLS), "zone": ZONES[i % 3]}
    n = {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "n%d" % i, "labels": labels},
         "spec": {},
         "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
    if rule == "taints" and r.random() < 0.5:
        n["spec"]["taints"] = [{"key": "dedicated", "value": r.choice(["gpu", "db"]),
                                "effect": r.choice(["NoSchedule", "NoExecute"])}]
    if rule == "unschedulable" and r.random() < 0.4:
        n["spec"]["unschedulable"] = True
    if rule == "headroom" and r.random() < 0.3:
        n["status"]["allocatable"]["pods"] = str(r.randint(3, 5))
    return n


def pod(name, ns, prio, cpu, mem, node_name=None, labels=None, started=0):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": ns, "uid": "u-" + name,
                      "labels": labels or {}, "annotations": {}},
         "spec": {"priority": prio,
                  "containers": [{"name": "c", "image": "x",
                                  "resources": {"requests": {"cpu": cpu, "memory": mem}}}]}}
    if node_name:
        p["spec"]["nodeName"] = node_name
        p["status"] = {"phase": "Running", "startTime": "2024-01-01T00:%02d:00Z" % started}
    return p


def constrain(r, native, twin, rule):
    """Gives a pending pod the rule's constraint: spec in `native`,
    annotations (or the same spec) in `twin`."""
    ns, ts, ta = native["spec"], twin["spec"], twin["metadata"]["annotations"]
    if rule == "selector":
        pool = r.choice(POOLS)
        ns["nodeSelector"] = {"pool": pool}
        ta["diff/pool"] = pool
    elif rule == "affinity":
        op = r.choice(["In", "NotIn"])
        zones = sorted(r.sample(ZONES, r.randint(1, 2)))
        ns["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "zone", "operator": op, "values": zones}]}]}}}
        ta["diff/zone-op"] = op
        ta["diff/zones"] = ",".join(zones)
    elif rule in ("taints", "unschedulable"):
        key = "dedicated" if rule == "taints" else "node.kubernetes.io/unschedulable"
        tol = r.choice([{"key": key, "operator": "Exists"},
                        {"key": key, "operator": "Equal", "value": r.choice(["gpu", "db"]),
                         "effect": "NoSchedule"},
                        {"operator": "Exists"}])
        ns["tolerations"] = ts["tolerations"] = [tol]
    elif rule == "zones":
        native["metadata"]["labels"]["app"] = twin["metadata"]["labels"]["app"] = "spread"
        ns["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "spread"}}, "topologyKey": "zone"}]}}
        ta["diff/spread"] = "1"
    elif rule == "prefer":
        terms = []
        for key, values in (("pool", POOLS), ("zone", ZONES)):
            if r.random() < 0.7:
                terms.append((key, r.choice(values), r.randint(1, 10)))
        ns["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "preference": {"matchExpressions": [
                {"key": k, "operator": "In", "values": [v]}]}} for k, v, w in terms]}}
        ta["diff/prefer"] = ",".join("%s=%s:%d" % t for t in terms)


def cluster(rule, seed):
    r = random.Random("%s-%d" % (rule, seed))
    nodes = [node(r, i, rule) for i in range(10)]
    bound = []
    k = 0
    for n in nodes:
        # Low-priority pods fill each node (4 cpu) most of the way.
        for _ in range(r.randint(2, 4)):
            labels = {"app": "guarded"} if r.random() < 0.2 else {"app": "batch"}
            ns = "batch"
            if rule == "zones" and r.random() < 0.25:
                # Pod anti-affinity looks at the pod's own namespace.
                labels, ns = {"app": "spread"}, "prod"
            bound.append(pod("low-%d" % k, ns, r.choice([0, 10, 50]),
                             r.choice(["500m", "1", "1500m"]), r.choice(["1Gi", "2Gi"]),
                             n["metadata"]["name"], labels, r.randint(0, 59)))
            k += 1
    native, twin = [], []
    for i in range(14):
        p = pod("high-%d" % i, "prod", r.choice([100, 1000]), r.choice(["1", "2", "3"]),
                r.choice(["1Gi", "4Gi"]))
        if r.random() < 0.2:
            p["spec"]["preemptionPolicy"] = "Never"
        t = json.loads(json.dumps(p))
        if r.random() < (0.5 if rule == "zones" else 0.8):
            constrain(r, p, t, rule)
        native.append(p)
        twin.append(t)
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "guarded", "namespace": "batch"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
           "status": {"disruptionsAllowed": 1}}
    return nodes + bound + [pdb] + native, nodes + bound + [pdb] + twin


def config(rule, twin):
    lines = ["apiVersion: kubescheduler.config.k8s.io/v1",
             "kind: KubeSchedulerConfiguration", "profiles:", "- schedulerName: default-scheduler"]
    if not twin:
        return "\n".join(lines) + "\n"
    plugins = ["  plugins:", "    multiPoint:", "      enabled:",
               "      - name: lua:twin", "        weight: 2"]
    if rule in DISABLED:
        plugins += ["    filter:", "      disabled:", "      - name: " + DISABLED[rule]]
    return "\n".join(lines + plugins + [
        "  pluginConfig:", "  - name: lua:twin", "    args:",
        "      file: " + os.path.join(DATA, rule + ".lua"),
        "      budgetMs: 10000"]) + "\n"


def write_docs(path, docs):
    with open(path, "w") as f:
        for d in docs:
            f.write("---\n" + json.dumps(d) + "\n")


def outcome(path):
    with open(path) as f:
        d = json.load(f)
    placed = {p["pod"]: p["node"] for p in d["placements"]}
    pre = set()
    for p in d.get("preemptions") or []:
        pre.add((p["preemptor"], p["node"], tuple(sorted(v["pod"] for v in p["victims"]))))
    return placed, pre


def main():
    if sys.argv[1] == "gen":
        rule, seed, out = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        native, twin = cluster(rule, seed)
        write_docs(os.path.join(out, "native.yaml"), native)
        write_docs(os.path.join(out, "twin.yaml"), twin)
        for name, t in (("native", False), ("twin", True)):
            with open(os.path.join(out, name + "-config.yaml"), "w") as f:
                f.write(config(rule, t))
        return 0
    a, pa = outcome(sys.argv[2])
    b, pb = outcome(sys.argv[3])
    pods = set(a) | set(b)
    placements = sum(1 for p in pods if a.get(p) != b.get(p))
    pending = sum(1 for p in pods if (a.get(p) is None) != (b.get(p) is None))
    print("placements %d preemptions %d unschedulable %d" % (placements, len(pa ^ pb), pending))
    return 0


if __name__ == "__main__":
    sys.exit(main())
