#!/bin/sh
# `simulate --generate` with scheduler_perf's affinity shapes: each shape
# schedules as its constraints say. TAP output. B: build directory.
set -u
B=${B:-build}
M="$B/moonsched"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib/tap.sh

tap_need "$M"

# SchedulingPodAntiAffinity: one pod per node, setup pods included
"$M" simulate --generate shape=pod-anti-affinity,nodes=10,bound-pods=3,pods=8 --stats >"$T/anti.out" 2>"$T/anti.err"
check "pod-anti-affinity: exit 0" test $? -eq 0
check "pod-anti-affinity: seven pods fit beside the three setup pods" has_text "$T/anti.err" "scheduled:         7"
check "pod-anti-affinity: the eighth is refused by the anti-affinity" has_text "$T/anti.out" \
    "sched-test/pod-7 -> (unschedulable) 0/10 nodes are available: 10 node(s) didn't match pod anti-affinity rules."
check "pod-anti-affinity: no node holds two of them" \
    sh -c "grep ' -> node-' '$T/anti.out' | sed 's/.* -> \\(node-[0-9]*\\) .*/\\1/' | sort | uniq -d | grep -q . && exit 1 || exit 0"
check "pod-anti-affinity: the setup pods' nodes are avoided" \
    sh -c "! grep -Eq ' -> node-[012]  ' '$T/anti.out'"

# SchedulingNodeAffinity: every node is in zone1, every pod fits
"$M" simulate --generate shape=node-affinity,nodes=20,bound-pods=20,pods=30 --stats >"$T/na.out" 2>"$T/na.err"
check "node-affinity: exit 0" test $? -eq 0
check "node-affinity: every pod scheduled" has_text "$T/na.err" "scheduled:         30"
# the same pods with nodes outside zone1..2 would not fit: a node-affinity
# pod on plain nodes
"$M" simulate --generate nodes=2,pods=0 --cluster /dev/stdin >"$T/na2.out" 2>&1 <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: failure-domain.beta.kubernetes.io/zone, operator: In, values: [zone1, zone2]}
  containers: [{name: pause, image: pause}]
YAML
check "node-affinity: without the zone label no node fits" has_text "$T/na2.out" \
    "default/p -> (unschedulable) 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."

"$M" simulate --generate shape=hexagon,nodes=1 >/dev/null 2>"$T/bad.err"
check "unknown shape: exit 2" test $? -eq 2
check "unknown shape: the shapes are listed" has_text "$T/bad.err" \
    "shape: expected basic, preemption, pod-anti-affinity, node-affinity, volumes or deschedule, got \"hexagon\""

tap_done
