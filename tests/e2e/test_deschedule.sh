#!/bin/bash
# `moonsched deschedule` on a real kube-apiserver v1.20.2 + etcd (TAP), with
# kube-controller-manager's disruption controller computing PDB status and
# `moonsched run` placing the replacements:
#  1. LowNodeUtilization: --dry-run prints the planned evictions with their
#     predicted nodes and evicts nothing; the real run evicts those pods
#     through the Eviction API (policy/v1beta1 on 1.20) and the
#     replacements land on the nodes predicted, never back on the hot one;
#  2. a PodDisruptionBudget with two disruptions allowed: two evictions,
#     then 429 and the rest skipped with the reason;
#  3. a pod with nowhere else to go is not evicted; DefaultEvictor's
#     priorityThreshold.name resolved from the PriorityClasses listed (an
#     unknown class fails the pass);
#  4. RemovePodsViolatingNodeAffinity after a node relabel;
#  6. a Lua strategy (policies/deschedule-drain.lua: deschedule and
#     evictable hooks);
#  5. --descheduling-interval under leader election (Lease
#     kube-system/descheduler), descheduler_* metrics on the secure port,
#     SIGTERM releases the Lease;
#  7. hot reload with an interval: a broken edit of a Lua strategy is
#     refused (log, moonsched_policy_reloads_total, a PolicyReloadFailed
#     Event) while passes go on with the running version; a fixed one
#     takes effect at the next pass; the same for a --policy file of the
#     predictions.
#  8. pods with claims: the pass lists the volume objects, so the
#     prediction's VolumeBinding sees the PersistentVolumes: a pod whose
#     claim is bound to a network PV (no node affinity) is evicted towards
#     another node; one bound to a local PV of its node is skipped, it
#     would land back there.
#
# There is no kubelet and no ReplicaSet controller: a background loop plays
# both, force-deleting pods with a deletionTimestamp and creating, for each
# pod labelled rs=<name> that went, a pending replacement <pod>-r with the
# same labels and spec (no nodeName). Stops everything it starts.
E2E_NAME=desched
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

# The harness of another branch brings start_kcm; this one is used until then.
if ! declare -F start_kcm >/dev/null; then
    kcm_pid=""
    start_kcm() {   # controllers
        [ -x "$bin/kube-controller-manager" ] || return 1
        mkdir -p "$dir/kcm-certs"
        "$bin/kube-controller-manager" --kubeconfig "$dir/admin.kubeconfig" --leader-elect=false \
            --bind-address=127.0.0.1 --secure-port="$(kube_free_port)" --port=0 --cert-dir="$dir/kcm-certs" \
            --controllers="$1" -v=2 >>"$dir/kcm.log" 2>&1 &
        kcm_pid=$!
    }
    stop_kcm() {
        [ -n "$kcm_pid" ] || return 0
        kill "$kcm_pid" 2>/dev/null
        wait "$kcm_pid" 2>/dev/null
        kcm_pid=""
    }
fi

kubelet_pid=""
ds_pid=""
stop_all() {
    local p
    for p in $kubelet_pid $ds_pid; do kill -9 "$p" 2>/dev/null; done
    for p in $kubelet_pid $ds_pid; do wait "$p" 2>/dev/null; done
    kubelet_pid=""
    ds_pid=""
    stop_kcm
}
# (E2E_KEEP=DIR: every log of the run, the API server's and etcd's
# included, is copied there at the end, however the suite ends)
trap 'stop_all; [ -n "${E2E_KEEP:-}" ] && cp "$dir"/*.log "$E2E_KEEP"/ 2>/dev/null; cleanup' EXIT
tap_on_failure() {
    local f
    for f in "$dir"/ms.log "$dir"/ds-*.log; do [ -f "$f" ] && tail -n 8 "$f" | sed "s|^|# $(basename "$f"): |"; done
}

kube_api() {
    local m=$1 p=$2 b=${3:-} ct='application/json'
    [ "$m" = PATCH ] && ct='application/merge-patch+json'
    curl -s --cacert "$KUBE_DIR/ca.crt" -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" \
        -H "Content-Type: $ct" -X "$m" "$KUBE_URL$p" ${b:+--data-binary "$b"}
}

# A ReplicaSet's pod bound to NODE, no memory request.
rs_pod() {   # name node cpu app [spec-json]
    mkpod "$1" node="$2" cpu="$3" memory= labels="{\"app\":\"$4\",\"rs\":\"$1\"}" spec="${5:-{\}}" \
        metadata="{\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"$4\",\"uid\":\"00000000-0000-0000-0000-00000000000$((${#4} % 10))\",\"controller\":true}]}"
}
ready() {   # pod: Running and Ready, as a kubelet would report
    kube_api PATCH "/api/v1/namespaces/default/pods/$1/status" \
        '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}' >/dev/null
}
exists() { kube_api GET "/api/v1/namespaces/default/pods/$1" | jq -e '.kind == "Pod"' >/dev/null; }

# The kubelet's and the ReplicaSet's parts.
kubelet() {
    local gone
    while :; do
        kube_api GET /api/v1/pods >"$dir/kl.json"
        jq -r '.items[] | select(.metadata.deletionTimestamp != null) | .metadata.name' "$dir/kl.json" |
            while read -r p; do
                kube_api DELETE "/api/v1/namespaces/default/pods/$p" '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}' >/dev/null
                jq -c --arg p "$p" '.items[] | select(.metadata.name == $p) |
                    {apiVersion: "v1", kind: "Pod", metadata: {name: "\($p)-r", labels: .metadata.labels,
                     ownerReferences: .metadata.ownerReferences}, spec: (.spec | del(.nodeName))}' "$dir/kl.json" >"$dir/kl-new.json"
                [ -s "$dir/kl-new.json" ] && kube_api POST /api/v1/namespaces/default/pods "$(cat "$dir/kl-new.json")" >/dev/null
            done
        sleep 0.2
    done
}
kubelet &
kubelet_pid=$!

if start_kcm disruption; then ok "kube-controller-manager (disruption controller) started"; else
    skip "kube-controller-manager" "not built (tests/e2e/build-kube.sh)"; fi
start_ms
check_eval "moonsched run, placing the replacements, has synced" "wait_for 15 'grep -qs \"informer synced\" \"\$dir/ms.log\"'"

ds() {   # log-name args...: one pass with the admin's credentials
    local name=$1
    shift
    "$ms" deschedule --kubeconfig "$dir/admin.kubeconfig" --secure-port=0 "$@" >"$dir/ds-$name.out" 2>"$dir/ds-$name.log"
}
policy() {   # file pool plugin point args: the pass looks at nodes pool=POOL only
    printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: pool=%s\nprofiles:\n- name: p\n  pluginConfig:\n  - {name: %s, args: {%s}}\n  plugins:\n    %s: {enabled: [%s]}\n' \
        "$2" "$3" "$5" "$4" "$3" >"$1"
}

# --- 1: LowNodeUtilization ---------------------------------------------------
mknode hot cpu=10 memory=64Gi labels='{"pool":"a"}'
mknode idle-1 cpu=10 memory=64Gi labels='{"pool":"a"}'
mknode idle-2 cpu=10 memory=64Gi labels='{"pool":"a"}'
for i in 0 1 2 3 4 5 6 7; do rs_pod "web-$i" hot 1 web; done
rs_pod db-0 idle-1 1500m db
policy "$dir/low.yaml" a LowNodeUtilization balance 'thresholds: {cpu: 20}, targetThresholds: {cpu: 50}'

ds dry --policy-config-file "$dir/low.yaml" --dry-run
check_eval "dry run: exit 0" "[ $? -eq 0 ]"
check_eval "dry run: three evictions planned off the hot node, each with its predicted node" \
    "[ \$(grep -Ec '^default/web-[0-7] +hot +idle-[12] +LowNodeUtilization ' \"\$dir/ds-dry.out\") -eq 3 ]"
grep -Eo '^default/web-[0-7] +hot +idle-[12]' "$dir/ds-dry.out" | awk '{print $3}' | sort >"$dir/predicted"
check_eval "dry run: the Eviction API version of 1.20 found" "grep -q 'version=policy/v1beta1' \"\$dir/ds-dry.log\""
sleep 1
check_eval "dry run: nothing evicted" \
    "[ \$(kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select(.spec.nodeName == \"hot\")] | length') -eq 8 ]"

ds real --policy-config-file "$dir/low.yaml"
check_eval "real run: exit 0" "[ $? -eq 0 ]"
grep -Eo '^default/web-[0-7] +hot +idle-[12]' "$dir/ds-real.out" >"$dir/moved"
check_eval "real run: the same plan (pods and nodes)" "diff <(awk '{print \$3}' \"\$dir/moved\" | sort) \"\$dir/predicted\" >/dev/null"
check_eval "real run: each eviction logged" "[ \$(grep -c 'msg=\"evicted pod\"' \"\$dir/ds-real.log\") -eq 3 ]"
check_eval "the evicted pods are gone from the hot node" \
    "wait_for 10 '[ \$(kube_api GET /api/v1/namespaces/default/pods | jq \"[.items[] | select(.spec.nodeName == \\\"hot\\\")] | length\") -eq 5 ]'"
check_eval "the replacements are placed" \
    "wait_for 20 '[ \$(kube_api GET /api/v1/namespaces/default/pods | jq \"[.items[] | select(.metadata.name | endswith(\\\"-r\\\")) | select(.spec.nodeName != null)] | length\") -eq 3 ]'"
kube_api GET /api/v1/namespaces/default/pods | jq -r '.items[] | select(.metadata.name | endswith("-r")) | .spec.nodeName' | sort >"$dir/landed"
check_eval "the replacements landed on the idle nodes as predicted ($(tr '\n' ' ' <"$dir/landed"))" \
    "diff \"\$dir/landed\" \"\$dir/predicted\" >/dev/null"
check_eval "capacity respected" capacity_ok

# --- 2: a PodDisruptionBudget --------------------------------------------------
mknode guard-hot cpu=10 memory=64Gi labels='{"pool":"b"}'
mknode guard-idle cpu=10 memory=64Gi labels='{"pool":"b"}'
for i in 0 1 2 3 4 5 6 7; do rs_pod "g-$i" guard-hot 1 guarded; ready "g-$i"; done
kube_api POST /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets \
    '{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"guarded"},"spec":{"minAvailable":6,"selector":{"matchLabels":{"app":"guarded"}}}}' >/dev/null
pdb_allowed() { kube_api GET /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guarded | jq -r '.status.disruptionsAllowed // "none"'; }
if [ -n "$kcm_pid" ]; then
    check_eval "the disruption controller allows 2 disruptions (8 healthy, minAvailable 6)" "wait_for 20 '[ \"\$(pdb_allowed)\" = 2 ]'"
    policy "$dir/guard.yaml" b LowNodeUtilization balance 'thresholds: {cpu: 20}, targetThresholds: {cpu: 50}'
    ds pdb --policy-config-file "$dir/guard.yaml"
    check_eval "two evictions go through" "[ \$(grep -Ec '^default/g-[0-7] +guard-hot +guard-idle +LowNodeUtilization ' \"\$dir/ds-pdb.out\") -eq 2 ]"
    check_eval "the third: 429 from the budget, skipped with the reason" \
        "grep -Eq '^default/g-[0-7] +guard-hot +LowNodeUtilization +a PodDisruptionBudget allows no disruption now \\(429: Cannot evict pod as it would violate the pod.s disruption budget' \"\$dir/ds-pdb.out\""
    check_eval "the budget now allows none" "[ \"\$(pdb_allowed)\" = 0 ]"
    check_eval "six guarded pods left on their node" \
        "wait_for 10 '[ \$(kube_api GET /api/v1/namespaces/default/pods | jq \"[.items[] | select(.spec.nodeName == \\\"guard-hot\\\")] | length\") -eq 6 ]'"
else
    skip "a PodDisruptionBudget blocks its pods" "no kube-controller-manager"
fi

# --- 3: nowhere else to go ----------------------------------------------------
# The pass predicts from bound pods only, as upstream's NodeFit does: a
# replacement of section 2 still pending would leave guard-idle looking
# free enough for big-0. Section 3 starts once every replacement is bound.
check_eval "section 2's replacements are bound before the next pass" \
    "wait_for 30 '[ \$(kube_api GET /api/v1/namespaces/default/pods | jq \"[.items[] | select(.metadata.name | endswith(\\\"-r\\\")) | select(.spec.nodeName == null)] | length\") -eq 0 ]'"
# Tainted from its creation: the replacements of section 2 still pending
# must not land on it before the taint.
mknode cordoned cpu=16 memory=64Gi labels='{"pool":"c"}' taints='[{"key":"dedicated","value":"infra","effect":"NoSchedule"}]'
mknode small cpu=4 memory=64Gi labels='{"pool":"c"}'
rs_pod big-0 cordoned 9 big
policy "$dir/taints-c.yaml" c RemovePodsViolatingNodeTaints deschedule ''
ds nowhere --policy-config-file "$dir/taints-c.yaml"
check_eval "nowhere else to go: skipped with the scheduler's reason" \
    "grep -Eq '^default/big-0 +cordoned +RemovePodsViolatingNodeTaints +it fits nowhere else \\(unschedulable: 0/[0-9]+ nodes are available' \"\$dir/ds-nowhere.out\""
sleep 1
check_eval "... and still running where it was" "[ \"\$(node_of big-0)\" = cordoned ] && ! exists big-0-r"

# priorityThreshold.name: a PriorityClass the pass lists. big-0 runs at
# priority 0 (the Priority admission's default); a class of value 0
# protects it; a class that does not exist fails the pass.
prio_policy() {   # file class
    printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: pool=c\nprofiles:\n- name: p\n  pluginConfig:\n  - {name: DefaultEvictor, args: {priorityThreshold: {name: %s}}}\n  - {name: RemovePodsViolatingNodeTaints, args: {}}\n  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n' \
        "$2" >"$1"
}
kube_api POST /apis/scheduling.k8s.io/v1/priorityclasses \
    '{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"e2e-floor"},"value":0}' >/dev/null
prio_policy "$dir/prio.yaml" e2e-floor
ds prio --policy-config-file "$dir/prio.yaml" --dry-run
check_eval "priorityThreshold.name: a listed class of value 0 protects big-0 (priority 0)" \
    "[ \"\$(kube_api GET /api/v1/namespaces/default/pods/big-0 | jq -r .spec.priority)\" = 0 ] && grep -Eq '^default/big-0 +cordoned +RemovePodsViolatingNodeTaints +pod has higher priority than specified priority class threshold\$' \"\$dir/ds-prio.out\""
prio_policy "$dir/prio-gone.yaml" no-such-class
ds prio-gone --policy-config-file "$dir/prio-gone.yaml" --dry-run
rc=$?
check_eval "... a class the cluster does not have: the pass fails with upstream's message" \
    "[ $rc -ne 0 ] && grep -qF 'failed to get priority threshold: unable to get priority value from the priority class: priorityclasses.scheduling.k8s.io \"no-such-class\" not found' \"\$dir/ds-prio-gone.log\""

# --- 4: RemovePodsViolatingNodeAffinity after a relabel ------------------------
mknode zone-1 cpu=10 memory=64Gi labels='{"pool":"d","zone":"a"}'
mknode zone-2 cpu=10 memory=64Gi labels='{"pool":"d","zone":"b"}'
rs_pod aff-0 zone-1 1 aff '{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}}}'
policy "$dir/aff.yaml" d RemovePodsViolatingNodeAffinity deschedule 'nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]'
ds aff-before --policy-config-file "$dir/aff.yaml"
check_eval "affinity met: nothing to do" "grep -qx '0 evicted, 0 skipped' \"\$dir/ds-aff-before.out\""
kube_api PATCH /api/v1/nodes/zone-1 '{"metadata":{"labels":{"zone":"c"}}}' >/dev/null
kube_api PATCH /api/v1/nodes/zone-2 '{"metadata":{"labels":{"zone":"a"}}}' >/dev/null
ds aff --policy-config-file "$dir/aff.yaml"
check_eval "after the relabel: evicted towards zone-2" \
    "grep -Eq '^default/aff-0 +zone-1 +zone-2 +RemovePodsViolatingNodeAffinity ' \"\$dir/ds-aff.out\""
check_eval "the replacement lands on zone-2" "wait_for 20 '[ \"\$(node_of aff-0-r)\" = zone-2 ]'"

# --- 6: a Lua strategy -------------------------------------------------------------
mknode drain-f cpu=10 memory=64Gi labels='{"pool":"f","moonsched.io/drain":"true"}'
mknode keep-f cpu=40 memory=64Gi labels='{"pool":"f"}'   # the emptiest node by far: no tie for the scheduler to break
rs_pod l-0 drain-f 500m lua
rs_pod l-pinned drain-f 100m pinned
kube_api PATCH /api/v1/namespaces/default/pods/l-pinned '{"metadata":{"annotations":{"moonsched.io/pinned":"true"}}}' >/dev/null
printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: pool=f\nprofiles:\n- name: lua\n  pluginConfig:\n  - {name: lua:drain, args: {file: policies/deschedule-drain.lua, args: {per_pass: 5}}}\n  plugins:\n    deschedule: {enabled: [lua:drain]}\n    filter: {enabled: [DefaultEvictor, lua:drain]}\n' >"$dir/lua.yaml"
ds lua --policy-config-file "$dir/lua.yaml"
check_eval "a Lua strategy: lua:drain evicts the drained node's pod with its reason" \
    "grep -Eq '^default/l-0 +drain-f +keep-f +lua:drain +node drain-f is being drained\$' \"\$dir/ds-lua.out\""
check_eval "... not the pinned one (its evictable hook)" "! grep -q l-pinned \"\$dir/ds-lua.out\" && exists l-pinned"
check_eval "... and the replacement lands on keep-f" "wait_for 20 '[ \"\$(node_of l-0-r)\" = keep-f ]'"

# --- 5: an interval, leader election, metrics ------------------------------------
mknode tainted-e cpu=4 memory=64Gi labels='{"pool":"e"}'
kube_api PATCH /api/v1/nodes/tainted-e '{"spec":{"taints":[{"key":"x","effect":"NoSchedule"}]}}' >/dev/null
mknode free-e cpu=4 memory=64Gi labels='{"pool":"e"}'
rs_pod t-0 tainted-e 100m te
policy "$dir/taints-e.yaml" e RemovePodsViolatingNodeTaints deschedule ''
port=$(kube_free_port)
"$ms" deschedule --kubeconfig "$dir/admin.kubeconfig" --policy-config-file "$dir/taints-e.yaml" \
    --descheduling-interval 1s --leader-elect --leader-elect-lease-duration 15s --leader-elect-renew-deadline 10s \
    --leader-elect-retry-period 500ms --secure-port="$port" --bind-address=127.0.0.1 >"$dir/ds-loop.out" 2>"$dir/ds-loop.log" &
ds_pid=$!
# (upstream's leaseDuration and renewDeadline: no failover here, and a
# leader whose renewals are not answered within renewDeadline gives the
# lease up and exits, as upstream's; on this shared machine the API server
# has left lease requests unanswered for 2 s and more under load, see
# docs/reliability.md, "Leader election on a loaded machine")
LEASE=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/descheduler
holder() { kube_api GET "$LEASE" | jq -r '.spec.holderIdentity // ""'; }
check_eval "it takes the Lease kube-system/descheduler" "wait_for 15 '[ -n \"\$(holder)\" ]'"
to_of() { sed -nE "s/.*msg=\"evicted pod\" pod=$1 .* to=([^ ]+) .*/\1/p" "$dir/ds-loop.log" | head -n 1; }
check_eval "the pod on the tainted node is evicted" "wait_for 10 '[ -n \"\$(to_of t-0)\" ]'"
check_eval "... and its replacement placed where predicted" \
    "wait_for 20 '[ \"\$(node_of t-0-r)\" = \"\$(to_of t-0)\" ]'"
check_eval "passes go on every second" "wait_for 10 '[ \$(grep -c \"msg=\\\"descheduling pass\\\"\" \"\$dir/ds-loop.log\") -ge 3 ]'"
scrape() {
    curl -sk -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" "https://127.0.0.1:$port/metrics"
}
scrape >"$dir/metrics.txt"
check_eval "metrics: descheduler_pods_evicted_total as upstream labels it" \
    "grep -qx 'descheduler_pods_evicted_total{namespace=\"default\",node=\"tainted-e\",profile=\"p\",result=\"success\",strategy=\"RemovePodsViolatingNodeTaints\"} 1' \"\$dir/metrics.txt\""
check_eval "metrics: descheduler_loop_duration_seconds counts the passes" \
    "awk '/^descheduler_loop_duration_seconds_count /{exit !(\$2 >= 3)}' \"\$dir/metrics.txt\""
check_eval "metrics: descheduler_strategy_duration_seconds per strategy and profile" \
    "grep -q '^descheduler_strategy_duration_seconds_count{profile=\"p\",strategy=\"RemovePodsViolatingNodeTaints\"} ' \"\$dir/metrics.txt\""
check_eval "metrics: leader_election_master_status" \
    "grep -qx 'leader_election_master_status{name=\"descheduler\"} 1' \"\$dir/metrics.txt\""
check_eval "metrics need credentials: system:anonymous gets 403" \
    "[ \"\$(curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$port/metrics)\" = 403 ]"
kill -TERM "$ds_pid"
wait "$ds_pid"
rc=$?
ds_pid=""
check_eval "SIGTERM: exit 0" "[ $rc -eq 0 ]"
check_eval "... and the Lease released" "wait_for 5 '[ -z \"\$(holder)\" ]'"

# --- 7: hot reload of a Lua strategy with an interval ---------------------------
mknode drain-g cpu=10 memory=64Gi labels='{"pool":"g","moonsched.io/drain":"true"}'
mknode keep-g cpu=40 memory=64Gi labels='{"pool":"g"}'
rs_pod h-0 drain-g 200m hot
printf 'local p = {name = "hot"}\nfunction p.deschedule(nodes) return {} end\nreturn p\n' >"$dir/hot.lua"
printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: pool=g\nprofiles:\n- name: hot\n  pluginConfig:\n  - {name: lua:hot, args: {file: %s}}\n  plugins:\n    deschedule: {enabled: [lua:hot]}\n' \
    "$dir/hot.lua" >"$dir/hot.yaml"
# A scheduling policy for the predictions too (--policy), reloaded the same way.
printf 'local p = {name = "sched"}\nfunction p.score(pod, node) return 0 end\nreturn p\n' >"$dir/sched.lua"
port=$(kube_free_port)
"$ms" deschedule --kubeconfig "$dir/admin.kubeconfig" --policy-config-file "$dir/hot.yaml" --policy "$dir/sched.lua" \
    --descheduling-interval 1s --secure-port="$port" --bind-address=127.0.0.1 >"$dir/ds-hot.out" 2>"$dir/ds-hot.log" &
ds_pid=$!
passes() { grep -c 'msg="descheduling pass"' "$dir/ds-hot.log"; }
check_eval "hot reload: passes run with the first version, nothing evicted" \
    "wait_for 10 '[ \$(passes) -ge 2 ]' && ! grep -q 'msg=\"evicted pod\"' \"\$dir/ds-hot.log\""
printf 'local p = {name = "hot"\nfunction p.deschedule(nodes) return {} end\nreturn p\n' >"$dir/hot.lua"
check_eval "a broken edit is refused with the Lua message" \
    "wait_for 10 'grep -q \"msg=\\\"reload refused\\\".*hot.lua:2: .}. expected\" \"\$dir/ds-hot.log\"'"
before=$(passes)
check_eval "... passes go on with the running version (none fails)" \
    "wait_for 10 '[ \$(passes) -ge \$((before + 2)) ]' && ! grep -q 'descheduling pass failed' \"\$dir/ds-hot.log\""
check_eval "... refused once, not at every pass" "[ \$(grep -c 'msg=\"reload refused\"' \"\$dir/ds-hot.log\") -eq 1 ]"
scrape >"$dir/metrics-hot.txt"
check_eval "... counted: moonsched_policy_reloads_total{result=\"refused\"} 1" \
    "grep -qx 'moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"refused\"} 1' \"\$dir/metrics-hot.txt\""
events() { kube_api GET "/api/v1/namespaces/kube-system/events?fieldSelector=reason%3D$1" | jq -r '.items[].message'; }
check_eval "... a Warning PolicyReloadFailed Event about the Lease" \
    "wait_for 5 'events PolicyReloadFailed | grep -q \"reload of .*hot.yaml failed, the running version stays\"'"
cp policies/deschedule-drain.lua "$dir/hot.lua"
check_eval "a fixed version takes effect at the next pass: the drained node's pod evicted" \
    "wait_for 10 'grep -q \"msg=\\\"evicted pod\\\" pod=h-0 .*strategy=lua:hot\" \"\$dir/ds-hot.log\"'"
check_eval "... logged as reloaded, counted, and a PolicyReloaded Event" \
    "grep -q 'msg=\"reloaded\"' \"\$dir/ds-hot.log\" && scrape | grep -qx 'moonsched_policy_reloads_total{plugin=\"DeschedulerPolicy\",profile=\"\",result=\"ok\"} 1' && wait_for 5 'events PolicyReloaded | grep -q hot.yaml'"
printf 'local p = {name = "sched"\nreturn p\n' >"$dir/sched.lua"
check_eval "a broken edit of a --policy file: refused with the Lua message" \
    "wait_for 10 'grep -q \"msg=\\\"reload refused\\\" file=[^ ]*sched.lua plugin=lua:sched .*sched.lua:2: .}. expected\" \"\$dir/ds-hot.log\"'"
before=$(passes)
check_eval "... passes go on with its running version (none fails), refused once" \
    "wait_for 10 '[ \$(passes) -ge \$((before + 2)) ]' && ! grep -q 'descheduling pass failed' \"\$dir/ds-hot.log\" &&
     [ \$(grep -c 'msg=\"reload refused\" file=[^ ]*sched.lua' \"\$dir/ds-hot.log\") -eq 1 ]"
check_eval "... counted: moonsched_policy_reloads_total{plugin=\"lua:sched\",result=\"refused\"} 1, and an Event" \
    "scrape | grep -qx 'moonsched_policy_reloads_total{plugin=\"lua:sched\",profile=\"\",result=\"refused\"} 1' &&
     wait_for 5 'events PolicyReloadFailed | grep -q \"reload of .*sched.lua failed, the running version stays\"'"
kill -TERM "$ds_pid"
wait "$ds_pid"
ds_pid=""

# --- 8: pods with claims bound to PersistentVolumes ----------------------------------
# No PV controller runs: each claim and its PV are bound by hand, as the PV
# controller leaves them (the claim's volumeName and bind-completed
# annotation, the PV's claimRef with the claim's uid, both phases Bound).
mknode drain-h cpu=10 memory=64Gi labels='{"pool":"h","moonsched.io/drain":"true","kubernetes.io/hostname":"drain-h"}'
mknode keep-h cpu=40 memory=64Gi labels='{"pool":"h","kubernetes.io/hostname":"keep-h"}'
bound_claim() {   # claim pv pv-source-and-affinity-json
    local uid
    uid=$(kube_api POST /api/v1/namespaces/default/persistentvolumeclaims \
        "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"$1\",\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":\"\",\"volumeName\":\"$2\",\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}}}" |
        jq -r .metadata.uid)
    kube_api POST /api/v1/persistentvolumes \
        "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":\"$2\"},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":\"\",\"claimRef\":{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"namespace\":\"default\",\"name\":\"$1\",\"uid\":\"$uid\"},$3}}" >/dev/null
    kube_api PUT "/api/v1/persistentvolumes/$2/status" \
        "$(kube_api GET "/api/v1/persistentvolumes/$2" | jq -c '.status.phase = "Bound"')" >/dev/null
    kube_api PUT "/api/v1/namespaces/default/persistentvolumeclaims/$1/status" \
        "$(kube_api GET "/api/v1/namespaces/default/persistentvolumeclaims/$1" | jq -c '.status = {phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: {storage: "1Gi"}}')" >/dev/null
}
bound_claim c-net pv-net '"nfs":{"server":"127.0.0.1","path":"/export"}'
bound_claim c-local pv-local '"local":{"path":"/mnt/disk"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["drain-h"]}]}]}}'
check_eval "two claims bound by hand to their PVs" \
    "[ \"\$(kube_api GET /api/v1/persistentvolumes | jq -r '[.items[] | select(.status.phase == \"Bound\") | .spec.claimRef.name] | sort | join(\",\")')\" = c-local,c-net ]"
# Both kept in pool h (nodes of the other sections are as empty as keep-h).
rs_pod v-net drain-h 200m vnet '{"nodeSelector":{"pool":"h"},"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c-net"}}]}'
rs_pod v-local drain-h 200m vlocal '{"nodeSelector":{"pool":"h"},"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c-local"}}]}'
printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nnodeSelector: pool=h\nprofiles:\n- name: lua\n  pluginConfig:\n  - {name: lua:drain, args: {file: policies/deschedule-drain.lua, args: {per_pass: 5}}}\n  plugins:\n    deschedule: {enabled: [lua:drain]}\n    filter: {enabled: [DefaultEvictor]}\n' >"$dir/vol.yaml"
ds vol --policy-config-file "$dir/vol.yaml"
check_eval "a pod on a network PV (no node affinity) is evicted with a predicted node" \
    "grep -Eq '^default/v-net +drain-h +keep-h +lua:drain ' \"\$dir/ds-vol.out\""
check_eval "a pod on a local PV of its node is skipped: it would land back there" \
    "grep -Eq '^default/v-local +drain-h +lua:drain +it would land back on drain-h' \"\$dir/ds-vol.out\" && exists v-local"
check_eval "... and the network PV's replacement lands where predicted" "wait_for 20 '[ \"\$(node_of v-net-r)\" = keep-h ]'"
check_eval "moonsched run still up" "kill -0 $ms_pid"
tap_done
