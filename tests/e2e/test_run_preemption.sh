#!/bin/bash
# Preemption in `moonsched run` against a real kube-apiserver v1.20.2 + etcd
# on loopback (TAP): victims chosen as upstream's DefaultPreemption would,
# deleted with their events, the preemptor nominated then bound;
# preemptionPolicy Never; PodDisruptionBudgets; a Lua policy that protects
# a namespace; two preemptors competing for one node; a Lua filter that
# rejects a node, which is then never the node of a preemption.
#
# There is no kubelet: a DELETE of a bound pod only sets its
# deletionTimestamp. A background loop plays the kubelet's part and
# force-deletes such pods (and logs them, which is how the test knows every
# pod the scheduler deleted). Each scenario has its own nodes (label
# group=sN) and its preemptors a nodeSelector for them, so that the
# scenarios do not compete. Victims are created already bound (spec.nodeName)
# so that the layout is exact. Stops everything it starts.
E2E_NAME=preempt
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"
root=$(cd "$here/../.." && pwd)


mkclass() {  # name value [preemptionPolicy]
    kube_api POST /apis/scheduling.k8s.io/v1/priorityclasses "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"$1\"},\"value\":$2${3:+,\"preemptionPolicy\":\"$3\"}}" >/dev/null
}
pod_json() { kube_api GET "/api/v1/namespaces/${1%%/*}/pods/${1#*/}"; }
exists() { pod_json "$1" | jq -e '.kind == "Pod"' >/dev/null; }
nominated() { pod_json "$1" | jq -r '.status.nominatedNodeName // ""'; }
# Pods force-deleted by the kubelet loop, sorted, space separated ("ns/name").
evicted_in() {   # prefix: the evicted pods whose name starts with it
    cut -d' ' -f1 "$dir/evicted" | sort -u | grep "/$1" | tr '\n' ' ' | sed 's/ $//'
}
# When the last of these pods was deleted for good (unix seconds).
last_evicted_at() { grep -E "^($(echo "$*" | tr ' ' '|')) " "$dir/evicted" | cut -d' ' -f2 | sort -n | tail -n 1; }
# When the bind request for the pod was sent (unix seconds, from the log
# line written when it completed, minus its duration).
bind_sent_at() {
    grep "verb=POST path=/api/v1/namespaces/${1%%/*}/pods/${1#*/}/binding status=201" "$dir/ms.log" |
        head -n 1 | sed -E 's/^ts=([^ ]+)Z .* ms=([0-9.]+).*$/\1 \2/' |
        while read -r ts ms; do awk -v t="$(date -d "${ts}Z" +%s.%N)" -v m="$ms" 'BEGIN { printf "%.3f\n", t - m / 1000 }'; done
}
related_of() {   # ns/name reason: the events.k8s.io/v1 `related` pods
    kube_api GET "/apis/events.k8s.io/v1/namespaces/${1%%/*}/events" |
        jq -r --arg n "${1#*/}" --arg r "$2" '.items[] | select(.regarding.name==$n and .reason==$r) | "\(.related.namespace)/\(.related.name)"'
}
# Events about a pod (core/v1 view: events.k8s.io/v1 ones show up there too).
events_of() {   # ns/name reason
    kube_api GET "/api/v1/namespaces/${1%%/*}/events" |
        jq -r --arg n "${1#*/}" --arg r "$2" '.items[] | select(.involvedObject.name==$n and .reason==$r) | .message'
}

# The kubelet's part: pods with a deletionTimestamp are deleted for good,
# unless $dir/hold exists (they then stay Terminating). $dir/evicted logs
# "ns/name unix-time" for each.
: >"$dir/evicted"
kubelet() {
    while :; do
        [ -f "$dir/hold" ] || kube_api GET /api/v1/pods |
            jq -r '.items[]? | select(.metadata.deletionTimestamp != null) | "\(.metadata.namespace)/\(.metadata.name) \(.metadata.uid)"' |
            while read -r key uid; do
                kube_api DELETE "/api/v1/namespaces/${key%%/*}/pods/${key#*/}" \
                    "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"$uid\"}}" >/dev/null
                echo "$key $(date +%s.%N)" >>"$dir/evicted"
            done
        sleep 0.2
    done
}
kubelet &
stop_at_exit $!

mkclass low 100
mkclass mid 200
mkclass high 1000
mkclass high-never 1000 Never

# --- 1: the victims upstream would choose, and no more ----------------------
# s1-a: 0.5 + 0.5 (low) + 1 (mid) cpu; s1-b: 1 + 1 (mid). A 1-cpu high pod:
# on s1-a the mid pod is reprieved and both low ones go (highest victim
# priority 100); on s1-b one mid pod would go (200). Upstream takes s1-a
# (lowest highest-victim priority, before the victim count).
mknode s1-a cpu=2 labels='{"group":"s1"}'
mknode s1-b cpu=2 labels='{"group":"s1"}'
mkpod default/s1-low-1 cpu=500m priority=low node=s1-a
mkpod default/s1-low-2 cpu=500m priority=low node=s1-a
mkpod default/s1-mid-a cpu=1 priority=mid node=s1-a
mkpod default/s1-mid-b1 cpu=1 priority=mid node=s1-b
mkpod default/s1-mid-b2 cpu=1 priority=mid node=s1-b
# --- 2: preemptionPolicy Never (a low pod fills the only node) --------------
mknode s2-a cpu=1 labels='{"group":"s2"}'
mkpod default/s2-low cpu=1 priority=low node=s2-a
# --- 5: two preemptors, room for one --------------------------------------------
# 3 cpu, three 1-cpu low pods; each preemptor needs 2 cpu: the first evicts
# two, the second sees the first's nomination and cannot fit even by
# evicting the third.
mknode s5-a cpu=3 labels='{"group":"s5"}'
for i in 1 2 3; do mkpod "default/s5-low-$i" cpu=1 priority=low node=s5-a; done
# --- 6 (below): a node for a mid then a high preemptor; a pod elsewhere
mknode s6-a cpu=1 labels='{"group":"s6"}'
mkpod default/s6-low cpu=1 priority=low node=s6-a
mknode s6-spare cpu=1 labels='{"group":"none"}'
mkpod default/s6-spare cpu=100m priority=low node=s6-spare

# --- 3: a PodDisruptionBudget, where another choice exists --------------------
# s3-a's pod has the lower priority (the default choice) but a PDB with no
# disruption allowed; s3-b's pod is unprotected: upstream evicts s3-b's.
# Nothing runs the disruption controller: its status is written here, via
# the /status subresource, as the controller would (1.20 serves policy/v1beta1).
mknode s3-a cpu=1 labels='{"group":"s3"}'
mknode s3-b cpu=1 labels='{"group":"s3"}'
mkpod default/s3-guarded cpu=1 priority=low node=s3-a labels='{"app":"guarded"}'
mkpod default/s3-free cpu=1 priority=mid node=s3-b labels='{"app":"free"}'
kube_api POST /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets \
    '{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"guard"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"guarded"}}}}' >/dev/null
kube_api GET /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard |
    jq -c '.status = {"observedGeneration": .metadata.generation, "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}' >"$dir/pdb.json"
kube_api PUT /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard/status "$(cat "$dir/pdb.json")" >/dev/null
check_eval "3: the PDB's status says no disruption is allowed" \
    'kube_api GET /apis/policy/v1beta1/namespaces/default/poddisruptionbudgets/guard | jq -e ".status.disruptionsAllowed == 0 and .status.currentHealthy == 1" >/dev/null'

start_ms
if ! wait_for 20 'grep -q "informer synced.*pods" "$dir/ms.log" && grep -q "informer synced.*nodes" "$dir/ms.log"'; then
    not_ok "moonsched synced its informers"
    tap_done
    exit 1
fi
# Nothing is scheduled before the PodDisruptionBudget informer has synced
# too, but its line may come seconds after the others: 1.20 does not serve
# policy/v1 (a 404, then the list again from policy/v1beta1), and a list
# that fails on a freshly started apiserver is retried after a backoff
# (0.8 s, doubling). Wait for it as long as for the others, then assert.
pdbs_synced() { grep -q 'informer synced.*poddisruptionbudgets' "$dir/ms.log"; }
check_eval "moonsched synced its PodDisruptionBudget informer" "wait_for 20 pdbs_synced"

mkpod default/s1-pre cpu=1 priority=high spec='{"nodeSelector":{"group":"s1"}}'
mkpod default/s2-never cpu=1 priority=high-never spec='{"nodeSelector":{"group":"s2"}}'
mkpod default/s5-pre-1 cpu=2 priority=high spec='{"nodeSelector":{"group":"s5"}}'
mkpod default/s5-pre-2 cpu=2 priority=high spec='{"nodeSelector":{"group":"s5"}}'

check_eval "1: the preemptor is bound to the node upstream chooses (s1-a)" \
    "wait_for 20 '[ \"\$(node_of default/s1-pre)\" = s1-a ]'"
check_eval "1: exactly the two low-priority pods of s1-a were deleted ($(evicted_in s1-))" \
    '[ "$(evicted_in s1-)" = "default/s1-low-1 default/s1-low-2" ]'
check_eval "1: the bind was sent after both victims were gone (not while Terminating)" \
    'awk -v b="$(bind_sent_at default/s1-pre)" -v d="$(last_evicted_at default/s1-low-1 default/s1-low-2)" "BEGIN { exit !(b != \"\" && d != \"\" && b + 0 >= d + 0) }"'
check_eval "1: the reprieved and the other node's pods are still there" \
    'exists default/s1-mid-a && exists default/s1-mid-b1 && exists default/s1-mid-b2'
check_eval "1: status.nominatedNodeName of the preemptor was set to s1-a" \
    "wait_for 5 '[ \"\$(nominated default/s1-pre)\" = s1-a ]'"
preempted_ok() {
    [ "$(events_of default/s1-low-1 Preempted)" = "Preempted by default/s1-pre on node s1-a" ] &&
        [ "$(events_of default/s1-low-2 Preempted)" = "Preempted by default/s1-pre on node s1-a" ]
}
check_eval "1: each victim has one Preempted event \"Preempted by default/s1-pre on node s1-a\"" \
    "wait_for 5 preempted_ok"
check_eval "1: the events.k8s.io/v1 event names the preemptor as related" \
    '[ "$(related_of default/s1-low-1 Preempted)" = default/s1-pre ]'
check_eval "1: no Preempted event on the pods that stayed" \
    '[ -z "$(events_of default/s1-mid-a Preempted)$(events_of default/s1-mid-b1 Preempted)" ]'
check_eval "1: the preemptor has its FailedScheduling event (as upstream), then Scheduled" \
    '[ -n "$(events_of default/s1-pre FailedScheduling)" ] && wait_for 5 "[ -n \"\$(events_of default/s1-pre Scheduled)\" ]"'

mkpod default/s3-pre cpu=1 priority=high spec='{"nodeSelector":{"group":"s3"}}'
check_eval "3: the preemptor goes to the node whose victim no PDB protects (s3-b)" \
    "wait_for 20 '[ \"\$(node_of default/s3-pre)\" = s3-b ]'"
check_eval "3: the PDB-protected pod stays; only the unprotected one was deleted ($(evicted_in s3-))" \
    'exists default/s3-guarded && [ "$(evicted_in s3-)" = default/s3-free ]'
# No other choice left: upstream then evicts despite the budget.
mkpod default/s3-pre-2 cpu=1 priority=high spec='{"nodeSelector":{"group":"s3"}}'
check_eval "3: with no other choice the PDB-protected pod is preempted after all" \
    "wait_for 20 '[ \"\$(node_of default/s3-pre-2)\" = s3-a ]' && [ \"\$(evicted_in s3-)\" = 'default/s3-free default/s3-guarded' ]"

never_ok() {
    pod_json default/s2-never |
        jq -e '.status.conditions[]? | select(.type=="PodScheduled" and .status=="False" and .reason=="Unschedulable")' >/dev/null
}
check_eval "2: preemptionPolicy Never: the pod gets PodScheduled=False" "wait_for 10 never_ok"
check_eval "2: its message says it may not preempt" \
    'pod_json default/s2-never | jq -e ".status.conditions[] | select(.type==\"PodScheduled\") | .message | test(\"preemptionPolicy=Never\")" >/dev/null'

s5_bound() { [ "$(node_of default/s5-pre-1)$(node_of default/s5-pre-2)" = s5-a ]; }
check_eval "5: one of the two competing preemptors is bound to s5-a" "wait_for 20 s5_bound"
sleep 2
s5_evicted=$(evicted_in s5-)
check_eval "5: two victims deleted, what one preemptor needs ($s5_evicted)" \
    '[ "$(echo "$s5_evicted" | wc -w)" = 2 ]'
check_eval "5: the other preemptor stays pending, the third low pod stays" \
    's5_bound && [ "$(echo "$s5_evicted" | wc -w)" = 2 ] && [ "$(evicted_in s5-)" = "$s5_evicted" ]'
check_eval "2: after all this the Never pod is still pending, its node's pod untouched" \
    '[ -z "$(node_of default/s2-never)" ] && exists default/s2-low && [ -z "$(evicted_in s2-)" ]'

# --- 6: victims still Terminating; a higher preemptor takes the node --------
# The kubelet holds deletions: the mid pod's victim stays Terminating, so it
# must not preempt again; a high pod then preempts on the same node (its
# victim is already going) and clears the mid pod's nomination, as upstream.
touch "$dir/hold"
mkpod default/s6-mid cpu=1 priority=mid spec='{"nodeSelector":{"group":"s6"}}'
terminating() { pod_json "$1" | jq -e '.metadata.deletionTimestamp != null' >/dev/null; }
check_eval "6: the mid pod is nominated to s6-a, its victim Terminating" \
    "wait_for 10 '[ \"\$(nominated default/s6-mid)\" = s6-a ] && terminating default/s6-low'"
# Any bound pod's deletion sends the mid pod back to the queue (upstream's
# AssignedPodDelete); a status change of its victim would not.
kube_api DELETE "/api/v1/namespaces/default/pods/s6-spare?gracePeriodSeconds=0" >/dev/null
check_eval "6: retried while its victim terminates, it is not eligible to preempt again" \
    "wait_for 10 'grep -q \"pod=default/s6-mid message=.*not eligible due to a terminating pod on the nominated node\" \"\$dir/ms.log\"'"
mkpod default/s6-high cpu=1 priority=high spec='{"nodeSelector":{"group":"s6"}}'
check_eval "6: the high pod is nominated to s6-a" "wait_for 10 '[ \"\$(nominated default/s6-high)\" = s6-a ]'"
check_eval "6: the mid pod's nomination is cleared" "wait_for 10 '[ -z \"\$(nominated default/s6-mid)\" ]'"
check_eval "6: nothing was bound to s6-a while its pod was Terminating" \
    '[ -z "$(node_of default/s6-high)$(node_of default/s6-mid)" ]'
rm -f "$dir/hold"
check_eval "6: once the victim is gone the high pod is bound to s6-a" \
    "wait_for 15 '[ \"\$(node_of default/s6-high)\" = s6-a ]'"
sleep 1
check_eval "6: the mid pod stays pending, only s6-low was deleted" \
    '[ -z "$(node_of default/s6-mid)" ] && [ "$(evicted_in s6-)" = default/s6-low ]'
check_eval "requests within allocatable on every node" capacity_ok
check_eval "moonsched exits 0 on SIGTERM" stop_ms

# --- 4: a Lua policy protects a namespace ------------------------------------
# kube-system's pod has the lower priority: the default would evict it; the
# protected-preemption policy (protects kube-system by default) must not.
mknode s4-a cpu=1 labels='{"group":"s4"}'
mknode s4-b cpu=1 labels='{"group":"s4"}'
mkpod kube-system/s4-sys cpu=1 priority=low node=s4-a
mkpod default/s4-app cpu=1 priority=mid node=s4-b
: >"$dir/ms.log"
start_ms --policy "$root/policies/protected-preemption.lua"
mkpod default/s4-pre cpu=1 priority=high spec='{"nodeSelector":{"group":"s4"}}'
check_eval "4: with the policy the preemptor goes to the unprotected node (s4-b)" \
    "wait_for 20 '[ \"\$(node_of default/s4-pre)\" = s4-b ]'"
check_eval "4: the kube-system pod was never deleted; the default one was ($(evicted_in s4-))" \
    'exists kube-system/s4-sys && [ "$(evicted_in s4-)" = default/s4-app ]'
check_eval "requests within allocatable on every node" capacity_ok
check_eval "moonsched exits 0 on SIGTERM" stop_ms

# --- 7: a Lua filter that rejects a node ------------------------------------
# s7-a's pod has the lower priority: the default would preempt it. The
# policy's filter rejects s7-a: it is never the node of a preemption.
mknode s7-a cpu=1 labels='{"group":"s7"}'
mknode s7-b cpu=1 labels='{"group":"s7"}'
mkpod default/s7-low cpu=1 priority=low node=s7-a
mkpod default/s7-mid cpu=1 priority=mid node=s7-b
printf '%s\n' 'local p = { name = "not-s7-a" }' \
    'function p.filter(pod, node) return node.name ~= "s7-a", "policy rejects s7-a" end' \
    'return p' >"$dir/not-s7-a.lua"
: >"$dir/ms.log"
start_ms --policy "$dir/not-s7-a.lua"
mkpod default/s7-pre cpu=1 priority=high spec='{"nodeSelector":{"group":"s7"}}'
check_eval "7: with a filter rejecting s7-a the preemptor goes to s7-b" \
    "wait_for 20 '[ \"\$(node_of default/s7-pre)\" = s7-b ]'"
check_eval "7: s7-a's pod was never deleted; s7-b's was ($(evicted_in s7-))" \
    'exists default/s7-low && [ "$(evicted_in s7-)" = default/s7-mid ]'
check_eval "requests within allocatable on every node" capacity_ok
check_eval "moonsched exits 0 on SIGTERM" stop_ms

tap_done
