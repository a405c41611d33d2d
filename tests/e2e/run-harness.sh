#!/bin/bash
# Shared start of the `moonsched run` end-to-end suites (sourced, after
# E2E_NAME is set): skips when the apiserver is not built, starts etcd and
# kube-apiserver in $dir, stops them and any moonsched ($ms_pid),
# kube-controller-manager ($kcm_pid, start_kcm) and upstream kube-scheduler
# ($ks_pid, start_ks) and what the suite registered with stop_at_exit on
# exit, and brings the TAP helpers (tests/lib/tap.sh), mknode, mkpod,
# mkpods, node_of and capacity_ok (every node's bound pods fit its allocatable).
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
kcm_pid=""
ks_pid=""
stop_pids=()
# stop_at_exit PID: a background job of the suite, stopped (TERM, then
# reaped) at exit before the apiserver, however the suite ends; one the
# suite already reaped is left alone (its PID may be another process's by
# then).
stop_at_exit() { stop_pids+=("$1"); }
cleanup() {
    local p running
    running=" $(jobs -p | tr '\n' ' ') "
    for p in "${stop_pids[@]}"; do
        case $running in *" $p "*) ;; *) continue ;; esac
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ -n "$ms_pid" ]; then kill -9 "$ms_pid" 2>/dev/null; wait "$ms_pid" 2>/dev/null; fi
    stop_kcm
    stop_ks
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

# A ServiceAccount in default and, when paths are given, a ClusterRole of
# the same name that lets it get those non-resource paths (JSON array).
service_account() {   # name [paths-json]
    kube_api POST /api/v1/namespaces/default/serviceaccounts \
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"$1\"}}" >/dev/null
    [ -n "${2:-}" ] || return 0
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterroles \
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"$1\"},\"rules\":[{\"nonResourceURLs\":$2,\"verbs\":[\"get\"]}]}" >/dev/null
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"$1\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"$1\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"$1\",\"namespace\":\"default\"}]}" >/dev/null
}
# A token of a ServiceAccount in default (TokenRequest, an hour).
token_of() {
    kube_api POST "/api/v1/namespaces/default/serviceaccounts/$1/token" \
        '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
        jq -r '.status.token // empty'
}

# The objects most checks start from, built from KEY=VALUE arguments after
# the name; JSON values are merged into the object, so any field a check
# needs (taints, tolerations, affinity, nodeName, ownerReferences...) goes
# in without a helper of its own.
#   mknode NAME [cpu=4] [memory=8Gi] [pods=110] [labels=JSON] [taints=JSON]
#          [spec=JSON]
#   mkpod NAME [ns=default] [cpu=100m] [memory=64Mi] [labels=JSON]
#         [metadata=JSON] [spec=JSON] [scheduler=NAME] [node=NAME]
#         [priority=CLASS] [tolerations=JSON]
# A pod NAME of the form NS/NAME is in NS. cpu= or memory= (empty) leaves
# that request out. Each prints a TAP comment and fails when the server
# refuses the object.
mknode() {
    local name=$1 cpu=4 memory=8Gi pods=110 labels='{}' taints=null spec='{}' a
    shift
    for a in "$@"; do
        case $a in
        cpu=*) cpu=${a#*=} ;; memory=*) memory=${a#*=} ;; pods=*) pods=${a#*=} ;;
        labels=*) labels=${a#*=} ;; taints=*) taints=${a#*=} ;; spec=*) spec=${a#*=} ;;
        *) echo "# mknode: unknown argument $a" >&2; return 1 ;;
        esac
    done
    jq -nc --arg n "$name" --arg c "$cpu" --arg m "$memory" --arg p "$pods" \
        --argjson l "$labels" --argjson t "$taints" --argjson s "$spec" \
        '{apiVersion: "v1", kind: "Node", metadata: {name: $n, labels: $l},
          spec: ((if $t == null then {} else {taints: $t} end) + $s),
          status: {capacity: {cpu: $c, memory: $m, pods: $p}, allocatable: {cpu: $c, memory: $m, pods: $p}}}' |
        kube_api POST /api/v1/nodes @- | jq -e .metadata.uid >/dev/null ||
        { echo "# could not create node $name"; return 1; }
}
mkpod() {
    local name=$1 ns=default cpu=100m memory=64Mi labels='{}' meta='{}' spec='{}' sched='' node='' class=''
    local tol=null a
    shift
    case $name in */*) ns=${name%%/*} name=${name#*/} ;; esac
    for a in "$@"; do
        case $a in
        ns=*) ns=${a#*=} ;; cpu=*) cpu=${a#*=} ;; memory=*) memory=${a#*=} ;;
        labels=*) labels=${a#*=} ;; metadata=*) meta=${a#*=} ;; spec=*) spec=${a#*=} ;;
        scheduler=*) sched=${a#*=} ;; node=*) node=${a#*=} ;; priority=*) class=${a#*=} ;;
        tolerations=*) tol=${a#*=} ;;
        *) echo "# mkpod: unknown argument $a" >&2; return 1 ;;
        esac
    done
    jq -nc --arg n "$name" --arg c "$cpu" --arg m "$memory" --arg sn "$sched" --arg nn "$node" \
        --arg pc "$class" --argjson l "$labels" --argjson md "$meta" --argjson s "$spec" --argjson t "$tol" \
        '{apiVersion: "v1", kind: "Pod", metadata: ({name: $n, labels: $l} + $md),
          spec: ({containers: [{name: "c", image: "pause", resources: {requests:
                   ((if $c == "" then {} else {cpu: $c} end) + (if $m == "" then {} else {memory: $m} end))}}]} + $s
                 + (if $sn == "" then {} else {schedulerName: $sn} end)
                 + (if $nn == "" then {} else {nodeName: $nn} end)
                 + (if $pc == "" then {} else {priorityClassName: $pc} end)
                 + (if $t == null then {} else {tolerations: $t} end))}' |
        kube_api POST "/api/v1/namespaces/$ns/pods" @- | jq -e .metadata.uid >/dev/null ||
        { echo "# could not create pod $ns/$name"; return 1; }
}
# PREFIX-1 .. PREFIX-COUNT, created at once; mkpod's options after COUNT.
mkpods() {   # prefix count [mkpod options]
    local pids=() i
    for i in $(seq 1 "$2"); do
        mkpod "$1-$i" "${@:3}" &
        pids+=($!)
    done
    wait "${pids[@]}"
}
node_of() {   # name [namespace], or ns/name -> its spec.nodeName, empty while unbound
    local ns=${2:-default} name=$1
    case $name in */*) ns=${name%%/*} name=${name#*/} ;; esac
    kube_api GET "/api/v1/namespaces/$ns/pods/$name" | jq -r '.spec.nodeName // ""'
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

# kube-controller-manager from the same tree with only the controllers a
# suite needs (a comma-separated list for --controllers, e.g.
# persistentvolume-binder). Never the node lifecycle controller: there is
# no kubelet, so no heartbeat, and it would taint every node. Admin
# credentials, no leader election, HTTPS on a free loopback port (its
# self-signed certificate in $dir), log in $dir/kcm.log.
start_kcm() {   # controllers [more flags]
    if [ ! -x "$bin/kube-controller-manager" ]; then
        echo "# kube-controller-manager not built (tests/e2e/build-kube.sh)" >&2
        return 1
    fi
    mkdir -p "$dir/kcm-certs"
    "$bin/kube-controller-manager" --kubeconfig "$dir/admin.kubeconfig" --leader-elect=false \
        --bind-address=127.0.0.1 --secure-port="$(kube_free_port)" --port=0 --cert-dir="$dir/kcm-certs" \
        --controllers="$1" -v=2 "${@:2}" >>"$dir/kcm.log" 2>&1 &
    kcm_pid=$!
}
stop_kcm() {
    [ -n "$kcm_pid" ] || return 0
    kill "$kcm_pid" 2>/dev/null
    wait "$kcm_pid" 2>/dev/null
    kcm_pid=""
}

# Upstream kube-scheduler from the same tree as the reference: the
# system:kube-scheduler identity, no leader election, the client's rate
# limit raised as for a comparison (its default QPS of 50 would be what is
# measured), its health/metrics on a free loopback port, log in
# $dir/kube-scheduler.log. Extra lines of KubeSchedulerConfiguration
# (v1beta1; e.g. profiles with pluginConfig) may follow.
start_ks() {   # [extra configuration lines]
    local port
    port=$(kube_free_port)
    {
        printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n'
        printf 'clientConnection: {kubeconfig: %s, qps: 5000, burst: 5000}\n' "$dir/scheduler.kubeconfig"
        printf 'leaderElection: {leaderElect: false}\nhealthzBindAddress: 127.0.0.1:%s\nmetricsBindAddress: 127.0.0.1:%s\n' \
            "$port" "$port"
        printf '%s\n' "${1:-}"
    } >"$dir/kube-scheduler.yaml"
    "$bin/kube-scheduler" --config "$dir/kube-scheduler.yaml" --port=0 --secure-port=0 -v=2 \
        >>"$dir/kube-scheduler.log" 2>&1 &
    ks_pid=$!
}
stop_ks() {
    [ -n "$ks_pid" ] || return 0
    kill "$ks_pid" 2>/dev/null
    wait "$ks_pid" 2>/dev/null
    ks_pid=""
}

if ! KUBE_BIN=$bin kube_start "$dir" >"$dir/start.log" 2>&1; then
    not_ok "kube-apiserver started"
    tail -n 20 "$dir/start.log" "$dir/apiserver.log" 2>/dev/null | sed 's/^/# /'
    exit 1
fi
ok "kube-apiserver v1.20.2 and etcd started on loopback"

# The suites that run replicas keep them in rpid (name -> pid). The first
# whose process has ended: its name in gone_name, its exit status in
# gone_status, reaped; returns 1 when every one still runs.
replica_gone() {
    local rn
    for rn in "${!rpid[@]}"; do
        kill -0 "${rpid[$rn]}" 2>/dev/null && continue
        wait "${rpid[$rn]}" 2>/dev/null
        gone_status=$? gone_name=$rn
        return 0
    done
    return 1
}
