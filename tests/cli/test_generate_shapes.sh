#!/bin/sh
# `simulate --generate` with scheduler_perf's affinity shapes: each shape
# schedules as its constraints say. TAP output. B: build directory.
. tests/lib/cli.sh

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
    "shape: expected basic, preemption, pod-anti-affinity, node-affinity, volumes, deschedule or a scheduler_perf test case"

# scheduler_perf's test cases by their upstream names (docs/performance.md):
# each at a small size, its counts, and a placement that only its labels
# and terms explain.
gen() {  # NAME SPEC: simulate the shape; T/NAME.out placements, T/NAME.err stats
    "$M" simulate --generate "shape=$1,$2" --stats >"$T/$1.out" 2>"$T/$1.err"
    check "$1: exit 0" test $? -eq 0
}
placed() { grep -c " -> $2 " "$T/$1.out" | grep -qx "$3"; }  # NAME NODE COUNT

gen SchedulingPodAffinity nodes=6,bound-pods=3,pods=4
check "SchedulingPodAffinity: 6 nodes, init pods bound, measured pending" has_text "$T/SchedulingPodAffinity.err" \
    "pods:              4 pending, 3 bound, 0 ignored"
check "SchedulingPodAffinity: measured pods in sched-1, all placed in zone1" has_text "$T/SchedulingPodAffinity.err" \
    "scheduled:         4"
check "SchedulingPodAffinity: measured pods are sched-1's" test "$(grep -c '^sched-1/pod-' "$T/SchedulingPodAffinity.out")" -eq 4

# preferred affinity to color=red on the hostname, over both namespaces:
# every measured pod joins the one init pod on node-0
gen SchedulingPreferredPodAffinity nodes=10,bound-pods=1,pods=3
check "SchedulingPreferredPodAffinity: all three beside the init pod" placed SchedulingPreferredPodAffinity node-0 3
check "SchedulingPreferredPodAffinity: InterPodAffinity scores it" has_text "$T/SchedulingPreferredPodAffinity.out" \
    "InterPodAffinity 200"

# preferred anti-affinity to color=yellow: the free node wins
gen SchedulingPreferredPodAntiAffinity nodes=4,bound-pods=3,pods=1
check "SchedulingPreferredPodAntiAffinity: the node without an init pod" placed SchedulingPreferredPodAntiAffinity node-3 1

# five templates of init pods (bound-pods each), default pods measured
gen MixedSchedulingBasePod nodes=10,bound-pods=2,pods=5
check "MixedSchedulingBasePod: 2 init pods of each of five templates" has_text "$T/MixedSchedulingBasePod.err" \
    "pods:              5 pending, 10 bound, 0 ignored"
check "MixedSchedulingBasePod: measured pods in default" test "$(grep -c '^default/pod-.* -> node-' "$T/MixedSchedulingBasePod.out")" -eq 5

# anti-affinity over the namespaces labelled team=devops: the init pods in
# init-ns-0 and init-ns-1 count against measure-ns-0's pods
gen SchedulingRequiredPodAntiAffinityWithNSSelector nodes=5,bound-pods=4,pods=2,init-namespaces=2
check "...AntiAffinityWithNSSelector: the one free node taken" placed SchedulingRequiredPodAntiAffinityWithNSSelector node-4 1
check "...AntiAffinityWithNSSelector: the second refused by the selected namespaces' pods" \
    has_text "$T/SchedulingRequiredPodAntiAffinityWithNSSelector.out" \
    "measure-ns-0/pod-1 -> (unschedulable) 0/5 nodes are available: 5 node(s) didn't match pod anti-affinity rules."

gen SchedulingPreferredAffinityWithNSSelector nodes=10,bound-pods=1,pods=2,init-namespaces=1
check "...PreferredAffinityWithNSSelector: beside the init pod of init-ns-0" \
    placed SchedulingPreferredAffinityWithNSSelector node-0 2

# churn pods: 9 cpu, priority 10, never fit a 4-cpu node
gen Unschedulable nodes=5,bound-pods=2,churn-pods=3,pods=10
check "Unschedulable: the churn pods fit nowhere" has_text "$T/Unschedulable.err" "unschedulable:     3"
check "Unschedulable: why" has_text "$T/Unschedulable.out" \
    "default/churn-0 -> (unschedulable) 0/5 nodes are available: 5 Insufficient cpu."
check "Unschedulable: the measured pods all placed" has_text "$T/Unschedulable.err" "scheduled:         10"

# four low-priority pods fill each node; each churn pod preempts three
gen PreemptionAsync nodes=5,bound-pods=20,churn-pods=2,pods=5
check "PreemptionAsync: two churn pods, three victims each" has_text "$T/PreemptionAsync.err" "preempted:         6"
check "PreemptionAsync: churn and measured pods placed" has_text "$T/PreemptionAsync.err" "scheduled:         7"

# the churn node has room for no pod
gen SchedulingWithMixedChurn nodes=5,churn-pods=1,pods=5
check "SchedulingWithMixedChurn: the churn node beside the nodes" has_text "$T/SchedulingWithMixedChurn.err" \
    "nodes:             6"
check "SchedulingWithMixedChurn: nothing on the churn node" sh -c "! grep -q ' -> node-churn' '$T/SchedulingWithMixedChurn.out'"
check "SchedulingWithMixedChurn: the churn pod fits nowhere" has_text "$T/SchedulingWithMixedChurn.err" \
    "unschedulable:     1"

# one node, gated pods that stay gated, light pods measured
gen SchedulingWhileGated gated-pods=3,pods=5
check "SchedulingWhileGated: the gated pods wait" has_text "$T/SchedulingWhileGated.err" "gated:             3"
check "SchedulingWhileGated: the rest on scheduler-perf-node" placed SchedulingWhileGated scheduler-perf-node 5

# every pod with its own claim bound to a CSI PV; 39 attachments a node
gen SchedulingCSIPVs nodes=2,bound-pods=77,pods=2
check "SchedulingCSIPVs: the last free attachment taken" placed SchedulingCSIPVs node-1 1
check "SchedulingCSIPVs: then no node has one left" has_text "$T/SchedulingCSIPVs.out" \
    "default/pod-1 -> (unschedulable) 0/2 nodes are available: 2 node(s) exceed max volume count."
check "SchedulingCSIPVs: the nodes' attach limit" has_text "$T/SchedulingCSIPVs.out" \
    "attachable-volumes-csi-ebs.csi.aws.com"

tap_done
