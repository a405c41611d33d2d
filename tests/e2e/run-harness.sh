#!/bin/bash
# Shared start of the `moonsched run` end-to-end suites (sourced, after
# E2E_NAME is set): skips when the apiserver is not built, starts etcd and
# kube-apiserver in $dir, stops them and any moonsched ($ms_pid) on exit,
# and brings the TAP helpers (tests/lib/tap.sh) and capacity_ok (every
# node's bound pods fit its allocatable).
set -u
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
ms=$B/moonsched

if [ ! -x "$bin/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    echo "1..0 # SKIP kube-apiserver or etcd not available (run tests/e2e/build-kube.sh)"
    exit 0
fi
if [ ! -x "$ms" ]; then
    echo "not ok - $ms is not built"
    exit 1
fi

# shellcheck source=kube-env.sh
source "$here/kube-env.sh"
dir=$(mktemp -d "/tmp/ms-e2e-${E2E_NAME:-run}.XXXXXX")
ms_pid=""
cleanup() {
    if [ -n "$ms_pid" ]; then kill -9 "$ms_pid" 2>/dev/null; wait "$ms_pid" 2>/dev/null; fi
    kube_stop "$dir"
    rm -rf "$dir"
}
trap cleanup EXIT

# shellcheck source=../lib/tap.sh
source "$here/../lib/tap.sh"
tap_on_failure() {
    if [ -f "$dir/ms.log" ]; then tail -n 15 "$dir/ms.log" | sed 's/^/# ms: /'; fi
}

# Every node: the bound pods' requests fit its allocatable.
capacity_ok() {
    local nodes pods
    kube_api GET /api/v1/nodes >"$dir/nodes.json"
    kube_api GET /api/v1/pods >"$dir/pods.json"
    python3 - "$dir/nodes.json" "$dir/pods.json" <<'PY'
import json, sys
def q(s):
    s = str(s)
    for suf, m in (("Ki", 1024), ("Mi", 1024**2), ("Gi", 1024**3), ("m", 0.001)):
        if s.endswith(suf): return float(s[:-len(suf)]) * m
    return float(s)
nodes = {n["metadata"]["name"]: n["status"]["allocatable"] for n in json.load(open(sys.argv[1]))["items"]}
used = {}
for p in json.load(open(sys.argv[2]))["items"]:
    nn = p["spec"].get("nodeName")
    if not nn: continue
    u = used.setdefault(nn, {"cpu": 0, "memory": 0, "pods": 0})
    u["pods"] += 1
    for c in p["spec"]["containers"]:
        r = c.get("resources", {}).get("requests", {})
        for k in ("cpu", "memory"):
            if k in r: u[k] += q(r[k])
bad = [(n, u) for n, u in used.items() if n not in nodes or any(u[k] > q(nodes[n][k]) + 1e-9 for k in u)]
for b in bad: print("# over capacity:", b)
sys.exit(1 if bad else 0)
PY
}

# The ServiceAccounts default/reader, bound to a ClusterRole that may get
# the non-resource URLs given (a JSON list's items: '"/metrics"'), and
# default/nobody, with their tokens in $reader and $nobody.
reader_and_nobody() {   # urls
    local sa
    for sa in reader nobody; do
        kube_api POST /api/v1/namespaces/default/serviceaccounts \
            "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"$sa\"}}" >/dev/null
    done
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterroles \
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"reader\"},\"rules\":[{\"nonResourceURLs\":[$1],\"verbs\":[\"get\"]}]}" >/dev/null
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
        '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"reader"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"reader"},"subjects":[{"kind":"ServiceAccount","name":"reader","namespace":"default"}]}' >/dev/null
    reader=$(token_of reader)
    nobody=$(token_of nobody)
}
token_of() {   # a ServiceAccount of default: a token for an hour
    kube_api POST "/api/v1/namespaces/default/serviceaccounts/$1/token" \
        '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
        jq -r '.status.token // empty'
}

wait_for() {   # seconds, command: true once the command is
    local end=$((SECONDS + $1))
    while [ $SECONDS -lt "$end" ]; do
        eval "$2" && return 0
        sleep "${WAIT_POLL:-0.2}"
    done
    return 1
}
# (HTTPS off: the suites share the host, and 10259 on every address is
# not loopback; test_run_serving.sh turns it on)
start_ms() {   # extra arguments of `moonsched run`
    "$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --secure-port=0 -v 4 "$@" >>"$dir/ms.log" 2>&1 &
    ms_pid=$!
}
stop_ms() {   # [signal, TERM by default] -> its exit status
    kill -"${1:-TERM}" "$ms_pid" 2>/dev/null
    wait "$ms_pid" 2>/dev/null
    local rc=$?
    ms_pid=""
    return $rc
}

if ! KUBE_BIN=$bin kube_start "$dir" >"$dir/start.log" 2>&1; then
    not_ok "kube-apiserver started"
    tail -n 20 "$dir/start.log" "$dir/apiserver.log" 2>/dev/null | sed 's/^/# /'
    exit 1
fi
ok "kube-apiserver v1.20.2 and etcd started on loopback"
