#!/bin/bash
# `moonsched run` against a real kube-apiserver v1.20.2 + etcd on loopback
# (TAP): binds the API server refuses with 409 Conflict. A policy holds a
# pod at Permit (assumed on a node, its bind not sent); meanwhile the test
# changes the pod behind the scheduler's back, then a second pod releases
# the first, whose bind meets the 409. Each refusal must be logged with
# its meaning, counted by reason, and leave the cache and queue right.
# (Two refusals cannot be played here, the unit tests cover them: the 1.20
# server drops spec.schedulingGates, and it does not check a Binding's UID,
# so it never answers "Precondition failed: UID".) Stops everything it
# starts.
E2E_NAME=conflicts
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

bind_to() {  # pod node -> the HTTP status of the binding
    curl -s -o "$dir/bind.out" -w '%{http_code}' --cacert "$KUBE_DIR/ca.crt" \
        -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" -H 'Content-Type: application/json' \
        -X POST "$KUBE_URL/api/v1/namespaces/default/pods/$1/binding" \
        --data-binary "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"$1\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"$2\"}}"
}
mport=$(kube_free_port)
metric() { curl -s "http://127.0.0.1:$mport/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
conflicts() { metric "moonsched_binding_conflicts_total{reason=\"$1\"}"; }
pending() {  # every queue of scheduler_pending_pods, a/b/u/g
    local t
    t=$(curl -s "http://127.0.0.1:$mport/metrics")
    for q in active backoff unschedulable gated; do
        printf '%s' "$(echo "$t" | awk -v k="scheduler_pending_pods{queue=\"$q\"}" '$1 == k { print $2 }')"
        [ "$q" = gated ] || printf /
    done
}
failed_events() {   # FailedScheduling events about a pod
    kube_api GET /api/v1/namespaces/default/events |
        jq --arg n "$1" '[.items[] | select(.reason == "FailedScheduling" and .involvedObject.name == $n)] | length'
}

# Pods labelled hold=yes wait at Permit (60 s) until a pod labelled
# release=yes passes Permit.
cat >"$dir/hold.lua" <<'LUA'
local p = { name = "hold" }
local held = {}
function p.permit(pod)
    if pod.labels["hold"] == "yes" then
        held[#held + 1] = pod.uid
        sched.log.info("holding", { pod = pod.name })
        return "wait", 60
    end
    if pod.labels["release"] == "yes" then
        for _, uid in ipairs(held) do sched.permit.allow(uid) end
        held = {}
    end
    return "allow"
end
return p
LUA

mknode n1 cpu=2 memory=4Gi labels='{"kubernetes.io/hostname":"n1"}'
mknode n2 cpu=2 memory=4Gi labels='{"kubernetes.io/hostname":"n2"}'
start_ms --policy "$dir/hold.lua" --metrics-bind-address "127.0.0.1:$mport" --plain-metrics
check_eval "moonsched is ready" "wait_for 20 '[ \"\$(curl -s -o /dev/null -w %{http_code} http://127.0.0.1:$mport/readyz)\" = 200 ]'"
held() { grep 'holding' "$dir/ms.log" | grep -q "pod=$1"; }

# --- already bound -------------------------------------------------------------
# held-1 can only go to n1 (its nodeSelector); the test binds it to n2.
mkpod held-1 cpu=1 labels='{"hold":"yes"}' spec='{"nodeSelector":{"kubernetes.io/hostname":"n1"}}'
check_eval "held-1 waits at Permit, assumed on n1, its bind not sent" "wait_for 15 'held held-1'"
check_eval "bound to n2 behind the scheduler's back (201)" '[ "$(bind_to held-1 n2)" = 201 ]'
# (the releasing pods request nothing, so that the probes below see only held-1)
mkpod release-1 cpu=0 labels='{"release":"yes"}'
check_eval "release-1 is bound" "wait_for 15 '[ -n \"\$(node_of release-1)\" ]'"
check_eval "held-1's bind met 409 already_bound, counted" "wait_for 10 '[ \"\$(conflicts already_bound)\" = 1 ]'"
check_eval "moonsched_bindings_total{result=\"conflict\"} counts it" \
    "[ \"\$(metric 'moonsched_bindings_total{result=\"conflict\"}')\" = 1 ]"
check "logged with its meaning" sh -c "grep 'binding conflict' '$dir/ms.log' | grep 'pod=default/held-1' |
    grep 'reason=already_bound' | grep -q 'bound by someone else meanwhile'"
check_eval "the binding made behind its back stands (n2)" '[ "$(node_of held-1)" = n2 ]'
check_eval "no FailedScheduling for held-1" '[ "$(failed_events held-1)" = 0 ]'
check_eval "nothing left in any queue (active/backoff/unschedulable/gated)" "wait_for 5 '[ \"\$(pending)\" = 0/0/0/0 ]'"
# The cache holds held-1 on n2 (1 of 2 cpu), and the assumption on n1 is
# gone: 2 cpu fit on n1 and not on n2.
mkpod probe-n1 cpu=2 spec='{"nodeSelector":{"kubernetes.io/hostname":"n1"}}'
mkpod probe-n2 cpu=2 spec='{"nodeSelector":{"kubernetes.io/hostname":"n2"}}'
check_eval "the assumption on n1 is forgotten: 2 cpu fit n1" "wait_for 15 '[ \"\$(node_of probe-n1)\" = n1 ]'"
check_eval "the cache counts held-1 on n2: 2 cpu do not fit there" "wait_for 15 '[ \"\$(failed_events probe-n2)\" -ge 1 ]' && [ -z \"\$(node_of probe-n2)\" ]"
check_eval "requests within allocatable" capacity_ok
kube_api DELETE "/api/v1/namespaces/default/pods/probe-n2?gracePeriodSeconds=0" >/dev/null

# --- being deleted ------------------------------------------------------------
# A finalizer keeps the pod, with its deletionTimestamp, after the delete.
mkpod held-2 cpu=0 labels='{"hold":"yes"}' metadata='{"finalizers":["example.com/keep"]}'
check_eval "held-2 waits at Permit" "wait_for 15 'held held-2'"
kube_api DELETE "/api/v1/namespaces/default/pods/held-2" >/dev/null
check_eval "held-2 is being deleted (kept by its finalizer)" \
    "wait_for 10 'kube_api GET /api/v1/namespaces/default/pods/held-2 | jq -e .metadata.deletionTimestamp >/dev/null'"
mkpod release-2 cpu=0 labels='{"release":"yes"}'
check_eval "release-2 is bound" "wait_for 15 '[ -n \"\$(node_of release-2)\" ]'"
check_eval "held-2's bind met 409 being_deleted, counted" "wait_for 10 '[ \"\$(conflicts being_deleted)\" = 1 ]'"
check "logged with its meaning" sh -c "grep 'binding conflict' '$dir/ms.log' | grep 'pod=default/held-2' |
    grep -q 'reason=being_deleted'"
check_eval "held-2 is dropped: not bound, nothing queued" \
    "[ -z \"\$(node_of held-2)\" ] && wait_for 5 '[ \"\$(pending)\" = 0/0/0/0 ]'"
check_eval "no other reason counted" \
    "[ \"\$(conflicts other)/\$(conflicts gated)/\$(conflicts uid_changed)\" = 0/0/0 ]"
curl -s -o /dev/null --cacert "$KUBE_DIR/ca.crt" -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" \
    -H 'Content-Type: application/merge-patch+json' -X PATCH \
    "$KUBE_URL/api/v1/namespaces/default/pods/held-2" --data-binary '{"metadata":{"finalizers":null}}'
check_eval "held-2 goes once its finalizer is removed" \
    "wait_for 10 '[ \"\$(kube_api GET /api/v1/namespaces/default/pods/held-2 | jq -r .code)\" = 404 ]'"

stop_ms
check_eval "moonsched exits 0 on SIGTERM" "[ $? -eq 0 ]"
tap_done
