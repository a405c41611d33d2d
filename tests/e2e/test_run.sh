#!/bin/bash
# `moonsched run` against a real kube-apiserver v1.20.2 + etcd on loopback
# (TAP). Nodes and pods are created through the API; moonsched runs with the
# system:kube-scheduler identity. Stops everything it starts.
E2E_NAME=run
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

unbound_count() {   # pods of ours (prefix) without a node
    kube_api GET /api/v1/namespaces/default/pods | jq --arg p "$1" \
        '[.items[] | select(.metadata.name | startswith($p)) | select((.spec.nodeName // "") == "")] | length'
}

# --- binding ---------------------------------------------------------------
mknode n1 cpu=2 memory=4Gi labels='{"zone":"a"}'
mknode n2 cpu=2 memory=4Gi labels='{"zone":"b"}'
# (`wait` with pids: a bare wait would also wait for etcd and the apiserver)
pids=()
for i in 1 2 3 4 5 6; do mkpod "web-$i" cpu=500m memory=256Mi & pids+=($!); done
wait "${pids[@]}"
start_ms
check_eval "all six pods bound to feasible nodes" "wait_for 20 '[ \"\$(unbound_count web-)\" = 0 ]'"
check_eval "requests within allocatable after binding" capacity_ok
# -v 4: each bind's time, split where it went (docs/run.md)
bind_times_ok() {
    local n
    n=$(grep -c 'msg="bind answered" pod=default/web-[1-6] ok=true at=[0-9.]* cycle_ms=[0-9.]* queued_ms=[0-9.]* server_ms=[0-9.]*[1-9][0-9.]* handback_ms=[0-9.]*$' "$dir/ms.log")
    [ "$n" = 6 ]
}
check_eval "at -v 4 each bind's times are logged (cycle, queue, server, handback)" bind_times_ok
check_eval "a Scheduled event names the node" \
    "wait_for 10 'kube_api GET /api/v1/namespaces/default/events | jq -e \"[.items[] | select(.reason==\\\"Scheduled\\\" and .involvedObject.name==\\\"web-1\\\")] | length == 1\" >/dev/null'"

# --- unschedulable -----------------------------------------------------------
mkpod huge cpu=64 memory=1Gi
cond_ok() {
    kube_api GET /api/v1/namespaces/default/pods/huge |
        jq -e '.status.conditions[]? | select(.type=="PodScheduled" and .status=="False" and .reason=="Unschedulable") | .message | test("Insufficient cpu")' >/dev/null
}
check_eval "an unschedulable pod gets PodScheduled=False, reason Unschedulable, the FitError message" "wait_for 15 cond_ok"
check_eval "and a FailedScheduling event" \
    "wait_for 10 'kube_api GET /api/v1/namespaces/default/events | jq -e \"[.items[] | select(.reason==\\\"FailedScheduling\\\" and .involvedObject.name==\\\"huge\\\")] | length >= 1\" >/dev/null'"
check_eval "the unschedulable pod is not bound" '[ -z "$(node_of huge)" ]'
patches=$(grep -c 'unschedulable" pod=default/huge' "$dir/ms.log")
sleep 2
patches2=$(grep -c 'unschedulable" pod=default/huge' "$dir/ms.log")
check_eval "its own status patch does not send it back through the queue (attempts $patches -> $patches2)" \
    '[ "$patches2" -le "$((patches + 1))" ]'

# --- another scheduler's pod --------------------------------------------------
mkpod other scheduler=someone-else
sleep 2
check_eval "a pod for another schedulerName is ignored" '[ -z "$(node_of other)" ]'

# --- deleted while pending; a node added later --------------------------------
mkpod gone-1 spec='{"nodeSelector":{"disk":"ssd"}}'
mkpod later-1 spec='{"nodeSelector":{"disk":"ssd"}}'
sleep 1
check_eval "pods for a missing node label stay pending" '[ -z "$(node_of later-1)" ] && [ -z "$(node_of gone-1)" ]'
kube_api DELETE "/api/v1/namespaces/default/pods/gone-1?gracePeriodSeconds=0" >/dev/null
sleep 0.5
mknode n3 cpu=2 memory=4Gi labels='{"disk":"ssd"}'
check_eval "a node added later is used" "wait_for 15 '[ \"\$(node_of later-1)\" = n3 ]'"
check_eval "the pod deleted while pending is dropped (never bound, no bind error)" \
    'grep -q "msg=\"bound\"" "$dir/ms.log" && ! grep -E "binding failed|msg=\"bound\"" "$dir/ms.log" | grep -q "gone-1"'

check_eval "requests within allocatable" capacity_ok
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"

# --- SIGKILL mid-run, restart ----------------------------------------------------
pids=()
for i in $(seq 1 8); do mknode "k$i" cpu=4 memory=8Gi & pids+=($!); done
wait "${pids[@]}"
pids=()
for i in $(seq 1 80); do mkpod "batch-$i" cpu=300m memory=128Mi & pids+=($!); done
wait "${pids[@]}"
: >"$dir/ms.log"
# A slow client (20 binds/s) so that the kill lands mid-run.
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nclientConnection: {qps: 20, burst: 1}\nleaderElection: {leaderElect: false}\n' >"$dir/slow.yaml"
start_ms --config "$dir/slow.yaml"
wait_for 20 '[ "$(unbound_count batch-)" -lt 75 ]'
before=$(unbound_count batch-)
stop_ms KILL
ok "moonsched killed with SIGKILL mid-run ($before of 80 pods still pending)"
cp "$dir/ms.log" "$dir/ms-first.log"
: >"$dir/ms.log"
start_ms
check_eval "after a restart every pod is bound" "wait_for 30 '[ \"\$(unbound_count batch-)\" = 0 ]'"
check_eval "the restarted scheduler had no bind refused (nothing bound twice)" \
    '! grep -q "binding failed" "$dir/ms.log"'
dups=$(kube_api GET /api/v1/namespaces/default/events | jq '[.items[] | select(.reason=="Scheduled") | .involvedObject.name] | group_by(.) | map(select(length > 1)) | length')
check_eval "every pod was bound exactly once (no pod has two Scheduled events)" '[ "$dups" = 0 ]'
check_eval "requests within allocatable on every node" capacity_ok
check_eval "moonsched exits 0 on SIGINT" "stop_ms INT"

tap_done
