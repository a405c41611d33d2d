#!/bin/sh
# `moonsched simulate --config` with a scheduler extender: the test builds
# and starts tests/cli/extender_server.c on 127.0.0.1, points a
# configuration at it and checks filter, prioritize and bind end to end;
# then `moonsched deschedule`'s passes against a scripted API server
# (tests/cli/list_api_server.py), one connection to the extender for all.
# TAP output. B: the build directory (default: build); CC: the C compiler.
. tests/lib/cli.sh

tap_need "$M"
# shellcheck disable=SC2046
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -o "$T/extender_server" tests/cli/extender_server.c \
    $(pkg-config --cflags --libs libcjson) 2>"$T/cc.err"; then
    not_ok "the test extender builds" "$(cat "$T/cc.err")"; echo "1..$n"; exit 1
fi
mkdir "$T/ext"
"$T/extender_server" "$T/ext" &
stop_at_exit $!
i=0
while [ ! -s "$T/ext/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "the test extender listens" test -s "$T/ext/port"
port=$(cat "$T/ext/port")

cat >"$T/sched.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: http://127.0.0.1:$port/
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 5
  httpTimeout: 10s
YAML
"$M" simulate --cluster "$D/extender-cluster.yaml" --config "$T/sched.yaml" >"$T/out" 2>"$T/err"
check "filter and prioritize: exit 0" test $? -eq 0
check "filter and prioritize: nothing on stderr" test ! -s "$T/err"
check "the extender's favourite node wins, its score shown last" \
    sh -c "grep '^default/web -> node-c  (' '$T/out' | grep -q '[0-9], http://127.0.0.1:$port/ 500; feasible 2/3)\$'"
check "the extender's reason is in the FitError" \
    sh -c "grep -q '^default/pinned -> (unschedulable) 0/3 nodes are available: 1 rejected by the test extender, 2 node(s) didn.t match Pod.s node affinity/selector\\.' '$T/out'"
check "filter and prioritize were called" \
    sh -c "grep -q 'POST /filter' '$T/ext/requests' && grep -q 'POST /prioritize' '$T/ext/requests'"

echo "  bindVerb: bind" >>"$T/sched.yaml"
"$M" simulate --cluster "$D/extender-cluster.yaml" --config "$T/sched.yaml" >"$T/out2" 2>"$T/err2"
check "bind: exit 0" test $? -eq 0
check "bind: the extender bound the pod" has_line "$T/ext/binds" "default/web node-c"
check "bind: the pod is placed" sh -c "grep -q '^default/web -> node-c  (' '$T/out2'"

# an extender nobody answers: the pod fails with the transport error
sed "s/127.0.0.1:$port/127.0.0.1:1/" "$T/sched.yaml" >"$T/down.yaml"
"$M" simulate --cluster "$D/extender-cluster.yaml" --config "$T/down.yaml" >"$T/out3" 2>&1
check "extender down: exit 0" test $? -eq 0
check "extender down: the pod reports the failed call" \
    sh -c "grep -q '^default/web -> (unschedulable) Post \"http://127.0.0.1:1/filter\": ' '$T/out3'"
echo "  ignorable: true" >>"$T/down.yaml"
"$M" simulate --cluster "$D/extender-cluster.yaml" --config "$T/down.yaml" >"$T/out4" 2>&1
check "ignorable extender down: the pod is placed anyway" sh -c "grep -q '^default/web -> node-' '$T/out4'"

# deschedule: its passes are simulate's on what the API server lists, and
# they share one connection to the extender (a pending pod makes each pass
# call it). The API server is tests/cli/list_api_server.py.
mkdir "$T/api"
cat >"$T/desched-cluster.json" <<'JSON'
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a", "labels": {"kubernetes.io/hostname": "node-a"}},
  "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
 {"apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-c", "labels": {"kubernetes.io/hostname": "node-c", "ext/favourite": "true"}},
  "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default", "uid": "8d2a7b8e-0001"},
  "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "500m"}}}]}}
]}
JSON
python3 tests/cli/list_api_server.py "$T/api" "$T/desched-cluster.json" 2>"$T/api.err" &
stop_at_exit $!
i=0
while [ ! -s "$T/api/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "the scripted API server listens" test -s "$T/api/port"
cat >"$T/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:$(cat "$T/api/port")"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
YAML
cat >"$T/desched-sched.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- {urlPrefix: "http://127.0.0.1:$port/", filterVerb: filter, prioritizeVerb: prioritize, weight: 5, httpTimeout: 10s}
YAML
: >"$T/ext/connections"
: >"$T/ext/requests"
: >"$T/desched.err"
"$M" deschedule --policy-config-file examples/descheduler-policy.yaml --kubeconfig "$T/kubeconfig" --dry-run \
    --secure-port=0 --config "$T/desched-sched.yaml" --descheduling-interval 1s >"$T/desched.out" 2>"$T/desched.err" &
ds=$!
stop_at_exit "$ds"
i=0
while [ "$(grep -c 'msg="descheduling pass (dry run)"' "$T/desched.err")" -lt 2 ] && [ $i -lt 1200 ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -TERM "$ds"
wait "$ds"
check "deschedule --descheduling-interval: exit 0 on SIGTERM" test $? -eq 0
passes=$(grep -c 'msg="descheduling pass (dry run)"' "$T/desched.err")
filters=$(grep -c 'POST /filter' "$T/ext/requests")
check "deschedule: $passes passes, the extender's filter called in each ($filters calls)" \
    sh -c "[ $passes -ge 2 ] && [ $filters -ge $passes ]"
check "deschedule: one connection to the extender for all its passes" \
    sh -c "[ \"\$(wc -l <'$T/ext/connections')\" -eq 1 ]"

# the configuration checker shows the extender
"$M" config check "$T/sched.yaml" >"$T/check.yaml" 2>&1
check "config check: exit 0" test $? -eq 0
check "config check: the extender with its effective timeout" \
    sh -c "grep -q '^- urlPrefix: http://127.0.0.1:$port/\$' '$T/check.yaml' && grep -q '^  httpTimeout: 10s\$' '$T/check.yaml'"

tap_done
