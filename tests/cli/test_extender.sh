#!/bin/sh
# `moonsched simulate --config` with a scheduler extender: the test builds
# and starts tests/cli/extender_server.c on 127.0.0.1, points a
# configuration at it and checks filter, prioritize and bind end to end.
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

# the configuration checker shows the extender
"$M" config check "$T/sched.yaml" >"$T/check.yaml" 2>&1
check "config check: exit 0" test $? -eq 0
check "config check: the extender with its effective timeout" \
    sh -c "grep -q '^- urlPrefix: http://127.0.0.1:$port/\$' '$T/check.yaml' && grep -q '^  httpTimeout: 10s\$' '$T/check.yaml'"

tap_done
