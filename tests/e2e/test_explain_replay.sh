#!/bin/bash
# Explain, snapshot and replay on a real kube-apiserver v1.20.2 + etcd
# (TAP). Nodes, a PriorityClass, bound pods and pending pods are created
# through the API; `moonsched snapshot` writes the live state; `moonsched
# run --seed 42 --debug-snapshot` starts as a standby (another holder has
# its Lease) and writes its own view on /debug/snapshot, then schedules
# the pending pods once the Lease is free; `simulate` on either snapshot
# with the same configuration and seed must place every pod where `run`
# bound it (and another seed must not, so that the seed is seen to
# matter). Then /debug/explain on the secure port (authorized by
# SubjectAccessReview: a ServiceAccount with nonResourceURLs /debug/* may,
# one without may not) for a pending and a bound pod, and `moonsched
# explain` over the same port. Loopback only; stops everything it starts.
E2E_NAME=explain
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

unbound_count() {
    kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select((.spec.nodeName // "") == "")] | length'
}
# "ns/name node" per pod the scheduler bound (not those created bound), sorted
live_placements() {
    kube_api GET /api/v1/namespaces/default/pods |
        jq -r '.items[] | select((.spec.nodeName // "") != "" and (.metadata.name | startswith("bound-") | not)) |
               "default/\(.metadata.name) \(.spec.nodeName)"' | sort
}
sim_placements() {   # snapshot seed
    "$ms" simulate --cluster "$1" --seed "$2" --output json |
        jq -r '.placements[] | select(.node != null) | "\(.pod) \(.node)"' | sort
}

# --- the cluster: identical nodes in two zones (many ties), one tainted ----------------------
for i in 1 2 3 4 5 6; do
    mknode "n$i" labels="{\"topology.kubernetes.io/zone\":\"zone-$(((i - 1) % 2))\",\"kubernetes.io/hostname\":\"n$i\"}"
done
mknode tainted labels='{"topology.kubernetes.io/zone":"zone-0","kubernetes.io/hostname":"tainted"}' \
    taints='[{"key":"dedicated","value":"infra","effect":"NoSchedule"}]'
kube_api POST /apis/scheduling.k8s.io/v1/priorityclasses \
    '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},"value":1000}' >/dev/null
# already bound: they count in the replay's cache as in the live one
mkpod bound-1 cpu=1 memory=1Gi node=n1
mkpod bound-2 cpu=500m memory=512Mi node=n4
pids=()
for i in $(seq 1 12); do mkpod "web-$i" cpu=250m memory=256Mi labels='{"app":"web"}' & pids+=($!); done
for i in 1 2 3 4; do
    mkpod "spread-$i" cpu=300m memory=128Mi labels='{"app":"spread"}' \
        spec='{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"spread"}}}]}' &
    pids+=($!)
done
for i in 1 2; do mkpod "urgent-$i" cpu=1 memory=1Gi priority=high & pids+=($!); done
mkpod big cpu=64 memory=1Gi & pids+=($!)
wait "${pids[@]}"
check_eval "19 pending pods and 2 bound ones created" "[ \"\$(unbound_count)\" = 19 ]"
# Volume objects no pod uses (the replay is unchanged), for the snapshots:
# 1.20 serves no CSIStorageCapacity (v1alpha1 only, off by default).
kube_api POST /apis/storage.k8s.io/v1/storageclasses \
    '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},"provisioner":"example.com/fast","volumeBindingMode":"WaitForFirstConsumer"}' >/dev/null
kube_api POST /api/v1/persistentvolumes \
    '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"fast","hostPath":{"path":"/tmp/pv-1"}}}' >/dev/null
kube_api POST /api/v1/namespaces/default/persistentvolumeclaims \
    '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"claim-1"},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"fast","resources":{"requests":{"storage":"1Gi"}}}}' >/dev/null
kube_api POST /apis/storage.k8s.io/v1/csidrivers \
    '{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"example.com.csi"},"spec":{}}' >/dev/null
kube_api POST /apis/storage.k8s.io/v1/csinodes \
    '{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"n1"},"spec":{"drivers":[{"name":"example.com.csi","nodeID":"n1","allocatable":{"count":10}}]}}' >/dev/null

# --- snapshot before the scheduler runs ----------------------------------------------------
check "moonsched snapshot --kubeconfig admin -o snap.yaml" \
    "$ms" snapshot --kubeconfig "$dir/admin.kubeconfig" -o "$dir/snap.yaml"
kinds=$(jq -r '[.items[].kind] | group_by(.) | map("\(.[0])=\(length)") | join(",")' "$dir/snap.yaml" 2>/dev/null)
check_eval "the snapshot holds the namespaces, 7 nodes, the PriorityClasses, 21 pods ($kinds)" \
    "echo '$kinds' | grep -q 'Node=7' && echo '$kinds' | grep -q 'Pod=21' && echo '$kinds' | grep -q 'Namespace=' &&
     echo '$kinds' | grep -q 'PriorityClass='"
check_eval "... and the volume kinds: a PV, a claim, a StorageClass, a CSIDriver, a CSINode ($kinds)" \
    "for k in PersistentVolume PersistentVolumeClaim StorageClass CSIDriver CSINode; do echo '$kinds' | grep -q \"\$k=1\" || exit 1; done"
check_eval "... CSIStorageCapacity, which 1.20 does not serve, left out without an error" \
    "! echo '$kinds' | grep -q CSIStorageCapacity"
check_eval "... each with its API version (storage.k8s.io/v1 for the storage kinds)" \
    "jq -e '[.items[] | select(.kind == \"StorageClass\" or .kind == \"CSINode\" or .kind == \"CSIDriver\") | .apiVersion] | unique == [\"storage.k8s.io/v1\"]' '$dir/snap.yaml' >/dev/null"
check_eval "without managedFields, each item with apiVersion and kind" \
    "jq -e '[.items[] | select(.metadata.managedFields != null or .apiVersion == null)] | length == 0' '$dir/snap.yaml' >/dev/null"
check_eval "the urgent pods carry the priority the admission gave them" \
    "jq -e '[.items[] | select(.metadata.name == \"urgent-1\") | .spec.priority] == [1000]' '$dir/snap.yaml' >/dev/null"

# --- run with a seed, first as a standby -------------------------------------------------
service_account explainer '["/debug/*"]'
service_account nobody
explainer=$(token_of explainer)
nobody=$(token_of nobody)
port=$(kube_free_port)
req() {   # path [token]: the HTTP code; body in $dir/body
    local auth=()
    [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
    curl -sk "${auth[@]}" -o "$dir/body" -w '%{http_code}' "https://127.0.0.1:$port$1"
}
# Someone else holds the scheduler's Lease: moonsched syncs its cache and
# queue as a standby, and schedules nothing until the Lease is deleted.
now=$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)
kube_api POST /apis/coordination.k8s.io/v1/namespaces/kube-system/leases \
    "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":\"kube-scheduler\"},\"spec\":{\"holderIdentity\":\"someone-else\",\"leaseDurationSeconds\":3600,\"acquireTime\":\"$now\",\"renewTime\":\"$now\"}}" >/dev/null
start_ms --seed 42 --leader-elect=true --leader-elect-retry-period=500ms --metrics-bind-address=0 \
    --secure-port="$port" --bind-address=127.0.0.1 --debug-snapshot
pods_in() { jq '[.items[] | select(.kind == "Pod")] | length' "$1" 2>/dev/null; }
check_eval "/debug/snapshot of the standby: its view, 21 pods" \
    "wait_for 20 '[ \"\$(req /debug/snapshot $explainer)\" = 200 ] && [ \"\$(pods_in $dir/body)\" = 21 ]'"
cp "$dir/body" "$dir/sched-snap.yaml"
names_of() {   # file kind: the names of that kind's items, sorted
    jq -r --arg k "$2" '.items[] | select(.kind == $k) | .metadata.name' "$1" | sort | tr '\n' ' '
}
check_eval "the scheduler's view: the namespaces, the same 7 nodes and 21 pods as the API server's" \
    "[ \"\$(names_of '$dir/sched-snap.yaml' Node)\" = \"\$(names_of '$dir/snap.yaml' Node)\" ] &&
     [ \"\$(names_of '$dir/sched-snap.yaml' Pod)\" = \"\$(names_of '$dir/snap.yaml' Pod)\" ] &&
     [ \"\$(names_of '$dir/sched-snap.yaml' Namespace)\" = \"\$(names_of '$dir/snap.yaml' Namespace)\" ]"
check_eval "... and the volume objects it watches: the same PV, claim, StorageClass and CSINode" \
    "for k in PersistentVolume PersistentVolumeClaim StorageClass CSINode; do
         [ -n \"\$(names_of '$dir/sched-snap.yaml' \$k)\" ] &&
         [ \"\$(names_of '$dir/sched-snap.yaml' \$k)\" = \"\$(names_of '$dir/snap.yaml' \$k)\" ] || exit 1
     done"
check_eval "/debug/snapshot with nobody's token: 403" "[ \"\$(req /debug/snapshot '$nobody')\" = 403 ]"
check_eval "nothing bound while standing by" "sleep 1; [ \"\$(unbound_count)\" = 19 ]"
kube_api DELETE /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler >/dev/null
check_eval "the Lease free: run --seed 42 binds all but the pod that fits nowhere" "wait_for 30 '[ \"\$(unbound_count)\" = 1 ]'"
check_eval "requests within allocatable" capacity_ok
live_placements >"$dir/live.txt"

# --- replay --------------------------------------------------------------------------------
sim_placements "$dir/snap.yaml" 42 >"$dir/replay.txt"
check_eval "simulate on the snapshot, seed 42: the same $(wc -l <"$dir/live.txt") placements as run made (18)" \
    "[ \"\$(wc -l <'$dir/live.txt')\" = 18 ] && diff '$dir/live.txt' '$dir/replay.txt' >'$dir/replay.diff'"
[ -s "$dir/replay.diff" ] && sed 's/^/# /' "$dir/replay.diff"
sim_placements "$dir/snap.yaml" 43 >"$dir/replay43.txt"
sim_placements "$dir/sched-snap.yaml" 42 >"$dir/replay-sched.txt"
check_eval "simulate on the scheduler's own snapshot, seed 42: the same placements" \
    "diff '$dir/live.txt' '$dir/replay-sched.txt' >&2"
sim_placements "$dir/snap.yaml" 43 >"$dir/replay43.txt"
check_eval "with seed 43 the placements differ (ties are broken by the seed)" \
    "! cmp -s '$dir/live.txt' '$dir/replay43.txt'"
check_eval "the replay leaves big unschedulable too" \
    "'$ms' simulate --cluster '$dir/snap.yaml' --seed 42 --output json |
       jq -e '.placements[] | select(.pod == \"default/big\") | .node == null' >/dev/null"
check_eval "/debug/snapshot after scheduling: the pods on the nodes run chose (assumed ones included)" \
    "[ \"\$(req /debug/snapshot $explainer)\" = 200 ] &&
     [ \"\$(jq -r '.items[] | select(.kind == \"Pod\" and .spec.nodeName != null and (.metadata.name | startswith(\"bound-\") | not)) |
        \"default/\\(.metadata.name) \\(.spec.nodeName)\"' '$dir/body' | sort)\" = \"\$(cat '$dir/live.txt')\" ]"

# --- /debug/explain ------------------------------------------------------------------------
check_eval "/debug/explain without a token: 403 (system:anonymous)" \
    "[ \"\$(req '/debug/explain?pod=default/big')\" = 403 ]"
check_eval "/debug/explain with nobody's token: 403" \
    "[ \"\$(req '/debug/explain?pod=default/big' '$nobody')\" = 403 ]"
check_eval "pending pod: 200, pending among the unschedulable pods, its last cycle Unschedulable with the FitError" \
    "[ \"\$(req '/debug/explain?pod=default%2Fbig' '$explainer')\" = 200 ] &&
     jq -e '.state == \"pending\" and .queue == \"unschedulable\" and .lastCycle.result == \"Unschedulable\" and
            (.lastCycle.message | test(\"^0/7 nodes are available: .*Insufficient cpu\"))' '$dir/body' >/dev/null"
check_eval "pending pod: every node's Filter status recomputed now (6 NodeResourcesFit, 1 TaintToleration)" \
    "jq -e '.recomputedNow.nodes == 7 and (.recomputedNow.nodeResults | length) == 7 and
            ([.recomputedNow.nodeResults[].filter.plugin] | map(select(. == \"NodeResourcesFit\")) | length) == 6 and
            ([.recomputedNow.nodeResults[].filter.plugin] | map(select(. == \"TaintToleration\")) | length) == 1' '$dir/body' >/dev/null"
n3=$(grep '^default/web-3 ' "$dir/live.txt" | cut -d' ' -f2)
check_eval "bound pod web-3: state bound on $n3, its cycle Scheduled with that node selected" \
    "[ \"\$(req '/debug/explain?pod=default/web-3' '$explainer')\" = 200 ] &&
     jq -e --arg n '$n3' '.state == \"bound\" and .node == \$n and .lastCycle.result == \"Scheduled\" and
            .lastCycle.selectedNode == \$n and .lastCycle.feasibleNodes >= 1 and (.recomputedNow == null)' '$dir/body' >/dev/null"
check_eval "an unknown pod: 404" "[ \"\$(req '/debug/explain?pod=default/nope' '$explainer')\" = 404 ]"
check_eval "no pod parameter: 400" "[ \"\$(req '/debug/explain' '$explainer')\" = 400 ]"

# --- moonsched explain ---------------------------------------------------------------------
"$ms" explain default/big --server "https://127.0.0.1:$port" --insecure-skip-tls-verify --token "$explainer" \
    >"$dir/explain.txt" 2>&1
check_eval "moonsched explain default/big: the state, the last cycle and the nodes recomputed now" \
    "grep -q '^Pod default/big: pending (unschedulable)' '$dir/explain.txt' &&
     grep -q '^  result: Unschedulable' '$dir/explain.txt' &&
     grep -q '^Recomputed now, over the current snapshot (7 nodes, 0 feasible)' '$dir/explain.txt' &&
     grep -Eq '^  tainted +TaintToleration: UnschedulableAndUnresolvable: node\\(s\\) had untolerated taint \\{dedicated: infra\\}' '$dir/explain.txt'"
printf '%s' "$explainer" >"$dir/token"
check_eval "moonsched explain --token-file -o json default/web-3: the JSON the port serves" \
    "'$ms' explain default/web-3 --server https://127.0.0.1:$port --insecure-skip-tls-verify --token-file '$dir/token' -o json |
       jq -e --arg n '$n3' '.node == \$n' >/dev/null"
"$ms" explain default/big --server "https://127.0.0.1:$port" --insecure-skip-tls-verify >"$dir/anon.txt" 2>&1
check_eval "moonsched explain without a token: exit 1, the 403 said" \
    "[ $? = 1 ] && grep -q 'answered 403' '$dir/anon.txt'"
"$ms" explain default/nope --server "https://127.0.0.1:$port" --insecure-skip-tls-verify --token "$explainer" \
    >"$dir/nope.txt" 2>&1
check_eval "moonsched explain of an unknown pod: exit 2, not known to the scheduler" \
    "[ $? = 2 ] && grep -q 'not known to the scheduler' '$dir/nope.txt'"
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"

tap_done
