#!/bin/bash
# A policy file that does not load when `moonsched run` starts, against a
# real kube-apiserver v1.20.2 + etcd on loopback (TAP): the scheduler stays
# up and healthy, says why on /readyz (503), in its log, in a
# PolicyLoadFailed Event and in moonsched_policy_reloads_total{result=
# "refused"}; the profile that uses the policy places no pod (fail closed,
# the pods' PodScheduled condition names the policy) while a profile whose
# copy says onLoadError: skip schedules without it and the others go on;
# once the file is fixed, the watcher loads it and the held pods are bound.
# Stops everything it starts.
E2E_NAME=policy-broken
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

condition() {   # pod -> its PodScheduled=False message
    kube_api GET "/api/v1/namespaces/default/pods/$1" |
        jq -r '.status.conditions[]? | select(.type == "PodScheduled" and .status == "False") | .message'
}
mport=$(kube_free_port)
murl="http://127.0.0.1:$mport"
http_code() { curl -s -o /dev/null -w '%{http_code}' "$murl$1"; }
metric() { curl -s "$murl/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }

# Two profiles with the same policy file: "guarded" fails closed (the
# default), "lenient" says onLoadError: skip; default-scheduler has none.
cat >"$dir/config.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: $dir/scheduler.kubeconfig}
profiles:
- schedulerName: default-scheduler
- schedulerName: guarded
  plugins: {multiPoint: {enabled: [{name: "lua:only"}]}}
  pluginConfig:
  - name: lua:only
    args: {file: $dir/only.lua}
- schedulerName: lenient
  plugins: {multiPoint: {enabled: [{name: "lua:only"}]}}
  pluginConfig:
  - name: lua:only
    args: {file: $dir/only.lua, onLoadError: skip}
EOF
printf 'local p = { name = "only" }\nfunction p.filter(_, node) return node.name == "right", "not right" end\nreturn p +\n' >"$dir/only.lua"

mknode left
mknode right
"$ms" run --config "$dir/config.yaml" --secure-port=0 --metrics-bind-address "127.0.0.1:$mport" --plain-metrics >>"$dir/ms.log" 2>&1 &
ms_pid=$!
check_eval "with a policy file that does not load, /healthz answers 200" "wait_for 20 '[ \"\$(http_code /healthz)\" = 200 ]'"
sleep 1
check_eval "the process stayed up" "kill -0 $ms_pid"
check_eval "/readyz answers 503" "wait_for 10 '[ \"\$(http_code /readyz)\" = 503 ]'"
curl -s "$murl/readyz" >"$dir/readyz.txt"
check_eval "... and says why: $(head -c 200 "$dir/readyz.txt")" \
    "grep -q 'profile guarded places no pod: policy lua:only did not load: .*only.lua' '$dir/readyz.txt'"
check_eval "the log says it" "grep -q 'msg=\"load failed\" profile=guarded plugin=lua:only' '$dir/ms.log'"
check_eval "moonsched_policy_reloads_total{result=refused} counts it, per profile" \
    "[ \"\$(metric 'moonsched_policy_reloads_total{plugin=\"lua:only\",profile=\"guarded\",result=\"refused\"}')\" = 1 ] &&
     [ \"\$(metric 'moonsched_policy_reloads_total{plugin=\"lua:only\",profile=\"lenient\",result=\"refused\"}')\" = 1 ]"
check_eval "a PolicyLoadFailed Warning Event, reported by the profile" \
    "wait_for 10 'kube_api GET /api/v1/namespaces/kube-system/events | jq -e \"[.items[] | select(.reason == \\\"PolicyLoadFailed\\\" and .type == \\\"Warning\\\" and .reportingComponent == \\\"guarded\\\")] | length == 1\" >/dev/null'"

mkpod g-1 scheduler=guarded
mkpod l-1 scheduler=lenient
mkpod d-1 scheduler=default-scheduler
check_eval "a profile without the policy schedules" "wait_for 20 '[ -n \"\$(node_of d-1)\" ]'"
check_eval "onLoadError: skip: the lenient profile schedules without it" "wait_for 10 '[ -n \"\$(node_of l-1)\" ]'"
check_eval "fail closed: the guarded profile's pod gets PodScheduled=False naming the policy" \
    "wait_for 10 'condition g-1 | tee \"\$dir/cond.txt\" | grep -q \"lua:only did not load\"'"
check_eval "... and stays pending" "[ -z \"\$(node_of g-1)\" ]"
echo "# condition: $(cat "$dir/cond.txt")"

# Fixed (as a ConfigMap update would: a new file renamed over the old).
printf 'local p = { name = "only" }\nfunction p.filter(_, node) return node.name == "right", "not right" end\nreturn p\n' >"$dir/only.lua.new"
mv "$dir/only.lua.new" "$dir/only.lua"
check_eval "once the file is fixed, the held pod is bound where the policy says" \
    "wait_for 20 '[ \"\$(node_of g-1)\" = right ]'"
check_eval "/readyz answers 200" "wait_for 10 '[ \"\$(http_code /readyz)\" = 200 ]'"
check_eval "the load counts as a reload" \
    "[ \"\$(metric 'moonsched_policy_reloads_total{plugin=\"lua:only\",profile=\"guarded\",result=\"ok\"}')\" = 1 ]"
mkpod l-2 scheduler=lenient
check_eval "the lenient profile now runs the policy too" "wait_for 20 '[ \"\$(node_of l-2)\" = right ]'"
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"

tap_done
