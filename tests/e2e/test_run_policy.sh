#!/bin/bash
# `moonsched run --policy` against a real kube-apiserver v1.20.2 + etcd on
# loopback (TAP): a policy decides where pods are bound, a rewrite of the
# file is picked up while the scheduler runs, a broken rewrite is refused;
# each is an Event through the API and a counter on /metrics, which with
# /healthz and /readyz is checked on a loopback port. Stops everything it
# starts.
E2E_NAME=policy
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"


# Only the node named by the policy's `target`.
only() {
    cat <<EOF
local p = { name = "only" }
function p.filter(_, node) return node.name == "$1", "not $1" end
return p
EOF
}

# Events about the scheduler itself regard the leader-election Lease
# (kube-system/kube-scheduler by default) outside a pod.
policy_events() {   # reason type: how many such Events exist
    kube_api GET /api/v1/namespaces/kube-system/events |
        jq --arg r "$1" --arg t "$2" '[.items[] | select(.reason == $r and .type == $t
            and .involvedObject.kind == "Lease" and .involvedObject.name == "kube-scheduler"
            and (.message | contains("lua:only")))] | length'
}
mport=$(kube_free_port)
murl="http://127.0.0.1:$mport"
http_code() { curl -s -o /dev/null -w '%{http_code}' "$murl$1"; }
# The value of one series of /metrics ("" when absent).
metric() { curl -s "$murl/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
attempts='scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}'
refused_total='moonsched_policy_reloads_total{plugin="lua:only",profile="default-scheduler",result="refused"}'
reloaded_total='moonsched_policy_reloads_total{plugin="lua:only",profile="default-scheduler",result="ok"}'

mknode left
mknode right
only left >"$dir/only.lua"
"$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --policy "$dir/only.lua" \
    --metrics-bind-address "127.0.0.1:$mport" --secure-port=0 --plain-metrics >>"$dir/ms.log" 2>&1 &
ms_pid=$!
check_eval "/readyz answers 200 once the informers synced" "wait_for 20 '[ \"\$(http_code /readyz)\" = 200 ]'"
check_eval "/healthz answers 200 while the loop runs" "[ \"\$(http_code /healthz)\" = 200 ]"
check_eval "/metrics is Prometheus text 0.0.4" \
    "curl -s -D - -o /dev/null '$murl/metrics' | grep -qi '^content-type: text/plain; version=0.0.4'"
check_eval "an unknown path answers 404" "[ \"\$(http_code /nope)\" = 404 ]"
for i in 1 2 3; do mkpod "a-$i"; done
check_eval "the policy decides: every pod on node left" \
    "wait_for 20 '[ \"\$(node_of a-1)\$(node_of a-2)\$(node_of a-3)\" = leftleftleft ]'"

reloaded() { grep 'msg="\?reloaded' "$dir/ms.log" | grep -q 'plugin=lua:only'; }
refused() { grep 'msg="reload refused"' "$dir/ms.log" | grep -q 'the running version stays'; }
only right >"$dir/only.lua.new" && mv "$dir/only.lua.new" "$dir/only.lua"
check_eval "a rewrite of the file is reloaded while the scheduler runs" "wait_for 10 reloaded"
check_eval "the reload is logged with its latency (under 1 s)" \
    "grep 'reloaded' '$dir/ms.log' | grep -Eq 'latency=0[.][0-9]+'"
check_eval "the reload is a Normal PolicyReloaded Event on the Lease" \
    "wait_for 10 '[ \"\$(policy_events PolicyReloaded Normal)\" = 1 ]'"
for i in 1 2; do mkpod "b-$i"; done
check_eval "pods created after the reload follow the new version (node right)" \
    "wait_for 20 '[ \"\$(node_of b-1)\$(node_of b-2)\" = rightright ]'"

printf 'return { name = ' >"$dir/only.lua"
check_eval "a broken rewrite is refused and reported" "wait_for 10 refused"
check_eval "the refusal is a Warning PolicyReloadFailed Event on the Lease" \
    "wait_for 10 '[ \"\$(policy_events PolicyReloadFailed Warning)\" = 1 ]'"
mkpod c-1
check_eval "and the running version goes on (node right)" "wait_for 20 '[ \"\$(node_of c-1)\" = right ]'"
check_eval "/metrics counts one refused reload" "wait_for 5 '[ \"\$(metric '\''$refused_total'\'')\" = 1 ]'"

only left >"$dir/only.lua.new" && mv "$dir/only.lua.new" "$dir/only.lua"
check_eval "a good rewrite after the broken one is a second Normal PolicyReloaded Event" \
    "wait_for 10 '[ \"\$(policy_events PolicyReloaded Normal)\" = 2 ]'"
mkpod d-1
check_eval "and is in effect (node left)" "wait_for 20 '[ \"\$(node_of d-1)\" = left ]'"
bound=$(kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select(.spec.nodeName != null)] | length')
check_eval "7 pods bound" "[ '$bound' = 7 ]"
check_eval "/metrics: scheduled attempts = pods bound ($bound)" "wait_for 5 '[ \"\$(metric '\''$attempts'\'')\" = $bound ]'"
check_eval "/metrics: bindings ok = pods bound" \
    "[ \"\$(metric 'moonsched_bindings_total{result=\"ok\"}')\" = $bound ]"
check_eval "/metrics: 2 reloads swapped in, 1 refused, policy enabled" \
    "wait_for 5 '[ \"\$(metric '\''$reloaded_total'\'')/\$(metric '\''$refused_total'\'')/\$(metric '\''moonsched_policy_disabled{plugin=\"lua:only\",profile=\"default-scheduler\"}'\'')\" = 2/1/0 ]'"
check_eval "/metrics: every binding request answered 201" \
    "[ \"\$(metric 'moonsched_api_requests_total{code=\"201\"}')\" -ge $bound ]"
check_eval "/metrics: nothing pending" \
    "wait_for 5 '[ \"\$(metric '\''scheduler_pending_pods{queue=\"active\"}'\'')\" = 0 ]'"

kill -TERM "$ms_pid" 2>/dev/null
wait "$ms_pid"
rc=$?
ms_pid=""
check_eval "moonsched exits 0 on SIGTERM" "[ $rc -eq 0 ]"

# In a pod (downward API env), the Events regard the scheduler's Pod. A
# version whose filter always fails is disabled after 10 failed calls.
pod_events() {   # reason type
    kube_api GET /api/v1/namespaces/default/events |
        jq --arg r "$1" --arg t "$2" '[.items[] | select(.reason == $r and .type == $t
            and .involvedObject.kind == "Pod" and .involvedObject.name == "moonsched-0"
            and .involvedObject.uid == "uid-of-moonsched-0")] | length'
}
POD_NAME=moonsched-0 POD_NAMESPACE=default POD_UID=uid-of-moonsched-0 \
    "$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --policy "$dir/only.lua" \
    --metrics-bind-address "127.0.0.1:$mport" --secure-port=0 --plain-metrics >>"$dir/ms.log" 2>&1 &
ms_pid=$!
check_eval "restarted in a pod: ready" "wait_for 20 '[ \"\$(http_code /readyz)\" = 200 ]'"
printf 'local p = { name = "only" }\nfunction p.filter() error("boom") end\nreturn p\n' >"$dir/only.lua.new"
mv "$dir/only.lua.new" "$dir/only.lua"
check_eval "the reload is a PolicyReloaded Event on the scheduler's Pod" \
    "wait_for 10 '[ \"\$(pod_events PolicyReloaded Normal)\" = 1 ]'"
for i in $(seq 1 12); do mkpod "e-$i"; done
check_eval "a policy failing 10 calls in a row is a Warning PolicyDisabled Event" \
    "wait_for 20 '[ \"\$(pod_events PolicyDisabled Warning)\" = 1 ]'"
disabled='moonsched_policy_disabled{plugin="lua:only",profile="default-scheduler"}'
failures='moonsched_policy_call_failures_total{plugin="lua:only",profile="default-scheduler"}'
check_eval "/metrics: the policy is disabled after 10 failed calls" \
    "wait_for 5 '[ \"\$(metric '\''$disabled'\'')/\$(metric '\''$failures'\'')\" = 1/10 ]'"
check_eval "/metrics: those attempts were unschedulable" \
    "[ \"\$(metric 'scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"}')\" -ge 10 ]"
kill -TERM "$ms_pid" 2>/dev/null
wait "$ms_pid"
rc=$?
ms_pid=""
check_eval "and exits 0 on SIGTERM" "[ $rc -eq 0 ]"

tap_done
