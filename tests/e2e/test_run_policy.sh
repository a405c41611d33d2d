#!/bin/bash
# `moonsched run --policy` against a real kube-apiserver v1.20.2 + etcd on
# loopback (TAP): a policy decides where pods are bound, a rewrite of the
# file is picked up while the scheduler runs, a broken rewrite is refused.
# Stops everything it starts.
E2E_NAME=policy
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

mknode() {   # name
    kube_api POST /api/v1/nodes "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"$1\"},\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}" >/dev/null
}
mkpod() {    # name
    kube_api POST /api/v1/namespaces/default/pods "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"pause\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}" >/dev/null
}
node_of() { kube_api GET "/api/v1/namespaces/default/pods/$1" | jq -r '.spec.nodeName // ""'; }
wait_for() {   # seconds, command
    local end=$((SECONDS + $1))
    while [ $SECONDS -lt "$end" ]; do
        eval "$2" && return 0
        sleep 0.2
    done
    return 1
}

# Only the node named by the policy's `target`.
only() {
    cat <<EOF
local p = { name = "only" }
function p.filter(_, node) return node.name == "$1", "not $1" end
return p
EOF
}

mknode left
mknode right
only left >"$dir/only.lua"
"$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --policy "$dir/only.lua" >>"$dir/ms.log" 2>&1 &
ms_pid=$!
for i in 1 2 3; do mkpod "a-$i"; done
check "the policy decides: every pod on node left" \
    "wait_for 20 '[ \"\$(node_of a-1)\$(node_of a-2)\$(node_of a-3)\" = leftleftleft ]'"

reloaded() { grep 'msg="\?reloaded' "$dir/ms.log" | grep -q 'plugin=lua:only'; }
refused() { grep 'msg="reload refused"' "$dir/ms.log" | grep -q 'the running version stays'; }
only right >"$dir/only.lua.new" && mv "$dir/only.lua.new" "$dir/only.lua"
check "a rewrite of the file is reloaded while the scheduler runs" "wait_for 10 reloaded"
check "the reload is logged with its latency (under 1 s)" \
    "grep 'reloaded' '$dir/ms.log' | grep -Eq 'latency=0[.][0-9]+'"
for i in 1 2; do mkpod "b-$i"; done
check "pods created after the reload follow the new version (node right)" \
    "wait_for 20 '[ \"\$(node_of b-1)\$(node_of b-2)\" = rightright ]'"

printf 'return { name = ' >"$dir/only.lua"
check "a broken rewrite is refused and reported" "wait_for 10 refused"
mkpod c-1
check "and the running version goes on (node right)" "wait_for 20 '[ \"\$(node_of c-1)\" = right ]'"

kill -TERM "$ms_pid" 2>/dev/null
wait "$ms_pid"
rc=$?
ms_pid=""
check "moonsched exits 0 on SIGTERM" "[ $rc -eq 0 ]"

echo "1..$n"
exit $failed
