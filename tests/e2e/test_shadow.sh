#!/bin/bash
# Shadow policies on a real kube-apiserver v1.20.2 + etcd (TAP). The same
# pending pods are scheduled twice by `moonsched run --seed 42`: once with
# the default profile, once with a Lua policy beside it in shadow mode
# (pluginConfig args mode: shadow) that prefers other nodes. Both runs
# must bind every pod to the same node (a third run with another seed
# must not, so that the comparison is seen to matter); the second counts the shadow's
# decisions on /metrics (moonsched_shadow_decisions_total) and lists its
# disagreements on /debug/shadow (secure port, authorized by
# SubjectAccessReview as /debug/explain is); a second shadow policy that
# fails is disabled after its first call and its other cycles are counted
# as skipped (moonsched_shadow_skipped_total), not as decisions. Loopback
# only; stops everything it starts.
E2E_NAME=shadow
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

pods() { kube_api GET /api/v1/namespaces/default/pods; }
unbound_count() { pods | jq '[.items[] | select((.spec.nodeName // "") == "")] | length'; }
pod_count() { pods | jq '.items | length'; }
placements() { pods | jq -r '.items[] | select((.spec.nodeName // "") != "") | "default/\(.metadata.name) \(.spec.nodeName)"' | sort; }
mkworkload() {   # the 16 web pods and one too big for any node
    for i in $(seq -w 1 16); do mkpod "web-$i" cpu=300m memory=256Mi labels='{"app":"web"}'; done
    mkpod big cpu=64 memory=1Gi labels='{"app":"web"}'
}
delete_pods() {
    for p in $(pods | jq -r '.items[].metadata.name'); do
        kube_api DELETE "/api/v1/namespaces/default/pods/$p?gracePeriodSeconds=0" >/dev/null
    done
}

for i in 1 2 3 4 5 6; do
    mknode "n$i" labels="{\"topology.kubernetes.io/zone\":\"zone-$(((i - 1) % 2))\",\"kubernetes.io/hostname\":\"n$i\"}"
done
cat >"$dir/last-node.lua" <<'LUA'
-- prefers the node with the highest number
local p = { name = "last-node" }
function p.score(pod, node, state) return tonumber(node.name:match("(%d+)$")) or 0 end
return p
LUA
cat >"$dir/broken.lua" <<'LUA'
-- fails every call: disabled after its first (maxConsecutiveFailures: 1)
local p = { name = "broken" }
function p.score(pod, node, state) error("broken") end
return p
LUA
cat >"$dir/shadow.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: lua:last-node
        weight: 3
      - name: lua:broken
  pluginConfig:
  - name: lua:last-node
    args: {file: $dir/last-node.lua, mode: shadow, budgetMs: 20}
  - name: lua:broken
    args: {file: $dir/broken.lua, mode: shadow, maxConsecutiveFailures: 1}
YAML
cat >"$dir/plain.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
YAML

# --- run 1: the default profile alone ------------------------------------------------------
mkworkload
check_eval "17 pending pods created" "[ \"\$(unbound_count)\" = 17 ]"
start_ms --config "$dir/plain.yaml" --seed 42 --metrics-bind-address=0
check_eval "run --seed 42 without a shadow policy binds the 16 that fit" "wait_for 30 '[ \"\$(unbound_count)\" = 1 ]'"
sleep 1
placements >"$dir/plain.txt"
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"
delete_pods
check_eval "the pods deleted" "wait_for 20 '[ \"\$(pod_count)\" = 0 ]'"

# --- run 2: the same pods, a shadow policy beside the profile ---------------------------
mkworkload
check_eval "the same 17 pending pods created again" "[ \"\$(unbound_count)\" = 17 ]"
service_account watcher '["/debug/*", "/metrics"]'
service_account nobody
watcher=$(token_of watcher)
nobody=$(token_of nobody)
port=$(kube_free_port)
req() {   # path [token]: the HTTP code; body in $dir/body
    local auth=()
    [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
    curl -sk "${auth[@]}" -o "$dir/body" -w '%{http_code}' "https://127.0.0.1:$port$1"
}
start_ms --config "$dir/shadow.yaml" --seed 42 --metrics-bind-address=0 --secure-port="$port" --bind-address=127.0.0.1
check_eval "run --seed 42 with the shadow policy binds the 16 that fit" "wait_for 30 '[ \"\$(unbound_count)\" = 1 ]'"
sleep 1
placements >"$dir/shadow.txt"
check_eval "live decisions unchanged: every pod on the node the run without the shadow policy chose" \
    "[ \"\$(wc -l <'$dir/plain.txt')\" = 16 ] && diff '$dir/plain.txt' '$dir/shadow.txt' >&2"
check_eval "requests within allocatable" capacity_ok

metric() {   # agree [policy]: the value of moonsched_shadow_decisions_total for it, from $dir/body
    sed -n "s/^moonsched_shadow_decisions_total{policy=\"lua:${2:-last-node}\",profile=\"default-scheduler\",agree=\"$1\"} //p" "$dir/body"
}
skipped() {  # policy: moonsched_shadow_skipped_total for it, from $dir/body
    sed -n "s/^moonsched_shadow_skipped_total{policy=\"lua:$1\",profile=\"default-scheduler\"} //p" "$dir/body"
}
check_eval "/metrics on the secure port: 16 shadow decisions, some of them disagreements" \
    "wait_for 10 '[ \"\$(req /metrics $watcher)\" = 200 ] && [ \$((\$(metric true) + \$(metric false))) = 16 ]' &&
     [ \"\$(metric false)\" -gt 0 ]"
disagree=$(metric false)
check_eval "/metrics: a shadow disabled after its first call decides nothing; its 15 other cycles are skipped" \
    "[ \"\$(metric true broken)\" = 0 ] && [ \"\$(metric false broken)\" = 0 ] && [ \"\$(skipped broken)\" = 15 ] &&
     [ \"\$(skipped last-node)\" = 0 ]"
check_eval "/debug/shadow with nobody's token: 403" "[ \"\$(req /debug/shadow '$nobody')\" = 403 ]"
check_eval "/debug/shadow without a token: 403" "[ \"\$(req /debug/shadow)\" = 403 ]"
check_eval "/debug/shadow: the counts as /metrics has them ($disagree disagreements)" \
    "[ \"\$(req /debug/shadow $watcher)\" = 200 ] &&
     jq -e --argjson d '$disagree' '.policies | length == 2 and .[0].policy == \"lua:last-node\" and
            .[0].profile == \"default-scheduler\" and .[0].decisions == 16 and .[0].disagree == \$d and .[0].errors == 0 and
            .[1].policy == \"lua:broken\" and .[1].decisions == 0 and .[1].errors == 1 and .[1].skipped == 15' '$dir/body' >/dev/null"
cp "$dir/body" "$dir/shadow.json"
check_eval "each disagreement lists the pod, the node it was bound to, and the higher-scoring node the shadow chose" \
    "jq -r '.policies[0].disagreements[] | select(.shadow.total > .live.total and .shadow.node != .live.node and
             .shadow.shadowScore > .live.shadowScore) | \"\\(.pod) \\(.live.node)\"' '$dir/shadow.json' | sort >'$dir/listed.txt' &&
     [ \"\$(wc -l <'$dir/listed.txt')\" = '$disagree' ] && [ -z \"\$(comm -23 '$dir/listed.txt' '$dir/shadow.txt')\" ]"
check_eval "the pod that fits nowhere is no decision (nothing to compare)" \
    "! jq -e '.policies[0].disagreements[] | select(.pod == \"default/big\")' '$dir/shadow.json' >/dev/null"
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"

# --- the control: another seed places the pods otherwise ---------------------------------
delete_pods
check_eval "the pods deleted" "wait_for 20 '[ \"\$(pod_count)\" = 0 ]'"
mkworkload
start_ms --config "$dir/shadow.yaml" --seed 43 --metrics-bind-address=0
check_eval "run --seed 43 binds the 16 that fit" "wait_for 30 '[ \"\$(unbound_count)\" = 1 ]'"
sleep 1
placements >"$dir/seed43.txt"
check_eval "with seed 43 the placements differ (the comparison above can fail)" \
    "! cmp -s '$dir/plain.txt' '$dir/seed43.txt'"
check_eval "SIGTERM: moonsched exits 0" "stop_ms TERM"

tap_done
