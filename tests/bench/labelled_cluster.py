#!/usr/bin/env python3
"""A cluster file for `moonsched simulate --cluster`, labelled like a cloud
cluster's nodes: ten labels (kubelet's, zone, region, instance type, a pool
and a price), a load annotation with an old timestamp, 8 GPUs on every
fourth node; pending pods of 100m and 500Mi, every other one asking for a
GPU. docs/policies.md's Performance figures use 5000 nodes and 4000 pods:

    python3 tests/bench/labelled_cluster.py 5000 4000 /tmp/cluster.json
    build/moonsched simulate --cluster /tmp/cluster.json \\
        --policy policies/cost-aware.lua --quiet --stats
"""
import json
import sys

nodes, pods, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
types = ["m5.xlarge", "m5.2xlarge", "c5.4xlarge", "p3.8xlarge"]
items = []
for i in range(nodes):
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    if i % 4 == 3:
        alloc["nvidia.com/gpu"] = "8"
    name = "node-%05d" % i
    labels = {
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": types[i % 4],
        "topology.kubernetes.io/zone": "zone-%d" % (i % 3),
        "topology.kubernetes.io/region": "r1", "moonsched.io/pool": "abc"[i % 3],
        "moonsched.io/price": "%d.%02d" % (1 + i % 7, i % 100),
    }
    annotations = {"moonsched.io/load": "0.%02d" % (i % 100),
                   "moonsched.io/load-timestamp": "1700000000"}
    items.append({"apiVersion": "v1", "kind": "Node",
                  "metadata": {"name": name, "labels": labels, "annotations": annotations},
                  "status": {"capacity": alloc, "allocatable": alloc,
                             "conditions": [{"type": "Ready", "status": "True"}]}})
for i in range(pods):
    req = {"cpu": "100m", "memory": "500Mi"}
    lim = {}
    if i % 2 == 0:
        req["nvidia.com/gpu"] = "1"
        lim["nvidia.com/gpu"] = "1"
    items.append({"apiVersion": "v1", "kind": "Pod",
                  "metadata": {"name": "pod-%d" % i, "namespace": "default", "uid": "u-%d" % i},
                  "spec": {"containers": [{"name": "c", "image": "pause",
                                           "resources": {"requests": req, "limits": lim}}]}})
with open(out, "w") as f:
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)
