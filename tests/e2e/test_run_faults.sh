#!/bin/bash
# `moonsched run` against a real kube-apiserver v1.20.2 + etcd on loopback
# (TAP), through a proxy that injects faults (tests/e2e/fault_proxy.py):
# watch streams cut mid-event, 410 Gone on WATCH and on LIST continue, 429
# with Retry-After, 500 and 503 on everything, connection resets, truncated
# bodies, a slow trickle, a bind that hangs past the client's timeout; and
# the apiserver SIGKILLed and restarted on the same etcd, and an etcd
# compaction. Each round creates pods, a node, and deletes a pod while the
# fault is on, then stops it; within 30 s the scheduler's cache must equal
# a fresh LIST (SIGUSR2: "cache comparer ... differences=0", with the
# counts kubectl sees), every pod be bound by exactly one successful bind
# (the proxy sees every bind), no node be over its allocatable, moonsched
# be alive. Convergence times and RSS are printed as comments. Stops
# everything it starts.
E2E_NAME=faults
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

if ! command -v python3 >/dev/null 2>&1; then
    skip "fault proxy" "python3 is not installed"
    tap_done
    exit 0
fi

# --- the proxy, and moonsched's kubeconfig through it ----------------------------
: >"$dir/faults"
python3 "$here/fault_proxy.py" --upstream "$KUBE_URL" --ca "$KUBE_DIR/ca.crt" --control "$dir/faults" \
    --log "$dir/proxy.log" --port-file "$dir/proxy.port" 2>"$dir/proxy.err" &
proxy_pid=$!
# (E2E_KEEP=DIR: the logs are copied there at the end, for a look)
trap 'kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null
      [ -n "${E2E_KEEP:-}" ] && cp "$dir"/*.log "$dir/figures" "$E2E_KEEP"/ 2>/dev/null; cleanup' EXIT
check_eval "the fault proxy listens" "wait_for 10 '[ -s \"$dir/proxy.port\" ]'"
sed -e "s|server: .*|server: http://127.0.0.1:$(cat "$dir/proxy.port")|" -e '/certificate-authority:/d' \
    "$dir/scheduler.kubeconfig" >"$dir/proxied.kubeconfig"
mv "$dir/proxied.kubeconfig" "$dir/scheduler.kubeconfig"

kubectl() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }
rmpod() { kube_api DELETE "/api/v1/namespaces/default/pods/$1?gracePeriodSeconds=0" >/dev/null; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$ms_pid/status" 2>/dev/null; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

all_bound() {
    [ "$(kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select(.spec.nodeName == null)] | length')" = 0 ]
}
# SIGUSR2, then the comparer's summary: no difference, and the counts
# kubectl sees (every node; the pods not terminal).
summaries() { grep -c 'msg="cache comparer" nodes=' "$dir/ms.log"; }
in_step() {
    local before nodes pods line
    before=$(summaries)
    kill -USR2 "$ms_pid" || return 1
    WAIT_POLL=0.1 wait_for 5 "[ \$(summaries) -gt $before ]" || return 1
    line=$(grep 'msg="cache comparer" nodes=' "$dir/ms.log" | tail -n 1)
    nodes=$(kubectl get nodes -o name | wc -l)
    pods=$(kubectl get pods -A --field-selector=status.phase!=Succeeded,status.phase!=Failed -o name | wc -l)
    case "$line" in *"nodes=$nodes pods=$pods differences=0"*) return 0 ;; esac
    return 1
}
# Every bound pod had exactly one bind answered 201 (the proxy's log:
# time class method path status fault).
binds_once() {
    kube_api GET /api/v1/namespaces/default/pods | jq -r '.items[] | select(.spec.nodeName != null) | .metadata.name' |
        sort >"$dir/bound"
    awk '$2 == "bind" && $5 == "201" { n = split($4, p, "/"); print p[n - 1] }' "$dir/proxy.log" | sort >"$dir/binds"
    if [ -n "$(uniq -d "$dir/binds")" ]; then echo "bound twice: $(uniq -d "$dir/binds")"; return 1; fi
    # (the pods deleted since were bound once too)
    if [ -n "$(comm -23 "$dir/bound" "$dir/binds")" ]; then
        echo "bound without a bind answered 201: $(comm -23 "$dir/bound" "$dir/binds")"
        return 1
    fi
}

# The checks after a fault: within `limit` seconds (30) from `t0`.
converge() {   # name t0 [limit]
    local name=$1 t0=$2 limit=${3:-30} rss0
    rss0=$(rss)
    if WAIT_POLL=0.5 wait_for "$limit" 'all_bound && in_step'; then
        local took
        took=$(since "$t0")
        ok "$name: the cache equals a fresh LIST and every pod is bound (${took}s after the fault)"
        echo "$name $took $rss0 $(rss)" >>"$dir/figures"
    else
        not_ok "$name: the cache equals a fresh LIST and every pod is bound within ${limit}s" \
            "$(grep -E 'cache comparer' "$dir/ms.log" | tail -n 8)"
    fi
    check "$name: every pod bound by exactly one bind" binds_once
    check "$name: no node over its allocatable" capacity_ok
    check_eval "$name: moonsched alive" 'kill -0 "$ms_pid" 2>/dev/null'
}

# A round: the fault on, pods created, a node added and a pod of the
# previous round deleted, `hold` seconds, the fault off.
prev=""
round() {    # name control-lines [hold]
    local name=$1 hold=${3:-3}
    printf '%s\n' "$2" >"$dir/faults"
    echo "$(now) fault $name: $2" >>"$dir/proxy.log"
    mkpod "$name-1" cpu=250m
    mknode "n-$name" cpu=2 memory=4Gi
    mkpod "$name-2" cpu=250m
    [ -n "$prev" ] && rmpod "$prev-1"
    mkpod "$name-3" cpu=250m
    sleep "$hold"
    : >"$dir/faults"
    prev=$name
    converge "$name" "$(now)"
}

mknode n1 cpu=2 memory=4Gi
mknode n2 cpu=2 memory=4Gi
mport=$(kube_free_port)
# Leader election on, with room for the apiserver's restart: with the
# default renewDeadline (10 s) a leader that cannot renew for longer exits
# by design, as upstream's (test_run_leader.sh covers that).
start_ms --metrics-bind-address "127.0.0.1:$mport" --leader-elect-lease-duration=60s \
    --leader-elect-renew-deadline=45s --leader-elect-retry-period=2s
check_eval "moonsched is ready" "wait_for 20 '[ \"\$(curl -s -o /dev/null -w %{http_code} http://127.0.0.1:$mport/readyz)\" = 200 ]'"
mkpod warm-1 cpu=250m
mkpod warm-2 cpu=250m
converge "no fault" "$(now)"
check "SIGUSR2 dumps every node with its pods" grep -q 'msg="cache dumper: node" node=n1 allocatable=' "$dir/ms.log"
check "SIGUSR2 dumps the pending pods of each queue" grep -q 'msg="cache dumper: pending pods" queue=unschedulable' "$dir/ms.log"
rss_start=$(rss)

round "watch-cut" "watch cut"
round "watch-gone" "watch gone"
round "watch-gone-event" "watch gone-event"
round "list-continue-gone" "watch gone
list gone"
round "throttled-429" "all 429 1"
round "error-500" "all 500"
round "unavailable-503" "all 503"
round "reset" "all reset"
round "truncated" "watch truncate
list truncate
bind truncate"
round "trickle" "watch trickle 4
list trickle 4
bind trickle 4" 5
check "a broken watch line made the informer watch again (not skip it)" \
    grep -q 'watch event is not JSON; watching again from the last one read' "$dir/ms.log"

# --- a bound pod deleted before its binding was seen ---------------------------------
# The bind is held while the watches are stopped, so that moonsched never
# sees the pod bound; the pod is deleted; the relist after 410 reports it
# gone with the unbound state the informer last saw. Its assumption (which
# never expires) must go, with what it held on its node.
printf 'bind hang 4\n' >"$dir/faults"
mkpod unseen-1 cpu=250m
wait_for 10 'grep -q "pods/unseen-1/binding ... hang" "$dir/proxy.log"'
printf 'watch 503\n' >"$dir/faults"
check_eval "unseen-1 is bound on the server" \
    "wait_for 10 '[ -n \"\$(kube_api GET /api/v1/namespaces/default/pods/unseen-1 | jq -r \".spec.nodeName // empty\")\" ]'"
sleep 1
rmpod unseen-1
printf 'watch gone\n' >"$dir/faults"
sleep 2
: >"$dir/faults"
converge "deleted-unconfirmed" "$(now)"

# --- the apiserver SIGKILLed, restarted on the same etcd -----------------------------
t0=$(now)
if kube_restart_apiserver "$dir" >>"$dir/start.log" 2>&1; then
    ok "kube-apiserver SIGKILLed and restarted on the same etcd ($(since "$t0")s)"
else
    not_ok "kube-apiserver SIGKILLed and restarted on the same etcd"
fi
t0=$(now)
mkpod restart-1 cpu=250m
mknode n-restart cpu=2 memory=4Gi
rmpod "$prev-1"
mkpod restart-2 cpu=250m
converge "apiserver-restart" "$t0"
prev=restart

# --- etcd compacted at its current revision while the watches are held ------------
relists=$(grep -c 'resourceVersion too old; relisting' "$dir/ms.log")
printf 'watch 503\n' >"$dir/faults"
mkpod compact-1 cpu=250m
mknode n-compact cpu=2 memory=4Gi
rmpod "$prev-1"
mkpod compact-2 cpu=250m
etcd_url="http://127.0.0.1:$(cat "$dir/etcd.port")"
rev=$(curl -s -X POST "$etcd_url/v3/kv/range" -d '{"key":"AA=="}' | jq -r .header.revision)
check_eval "etcd compacted at revision $rev" \
    "curl -sf -X POST '$etcd_url/v3/kv/compaction' -d '{\"revision\":\"$rev\",\"physical\":true}' >/dev/null"
sleep 2
: >"$dir/faults"
converge "etcd-compaction" "$(now)"
echo "# relists after 410 Gone during the compaction round: $(($(grep -c 'resourceVersion too old; relisting' "$dir/ms.log") - relists))"

# --- a bind held past the client's timeout (60 s), then sent on ------------------------
printf 'bind hang 65\n' >"$dir/faults"
t0=$(now)
mkpod hang-1 cpu=250m
check_eval "the bind of hang-1 is held" \
    "wait_for 10 'grep -q \"bind POST /api/v1/namespaces/default/pods/hang-1/binding ... hang\" \"$dir/proxy.log\"'"
: >"$dir/faults"
mkpod after-hang-1 cpu=250m
check_eval "other pods are bound meanwhile" \
    "wait_for 15 '[ -n \"\$(kube_api GET /api/v1/namespaces/default/pods/after-hang-1 | jq -r \".spec.nodeName // empty\")\" ]'"
converge "bind-hang" "$t0" 80
hung_bind_refused() { awk '$2 == "bind" && $4 ~ /hang-1/ && $5 == "409"' "$dir/proxy.log" | grep -q .; }
check_eval "the held bind reached the API server after the retry, and was refused (409)" "wait_for 10 hung_bind_refused"

rss_end=$(rss)
echo "# RSS: ${rss_start} KiB after warm-up, ${rss_end} KiB after every fault"
check_eval "RSS bounded: under 64 MiB after every fault" "[ ${rss_end:-999999} -lt 65536 ]"
sed 's/^/# figures: /' "$dir/figures"
stop_ms
check_eval "moonsched exits 0 on SIGTERM" "[ $? -eq 0 ]"
tap_done
