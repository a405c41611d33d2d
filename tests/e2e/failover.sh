#!/bin/bash
# Failover under load (`make failover`, TAP; docs/reliability.md): three
# `moonsched run` replicas under leader election (leaseDuration 5s,
# renewDeadline 4s, retryPeriod 1s) on a real kube-apiserver v1.20.2 + etcd,
# all through the fault proxy (tests/e2e/fault_proxy.py, no fault on), which
# logs every binding POST and every DELETE. Every FAILOVER_KILL_EVERY s (20)
# the holder of the Lease is SIGKILLed and started again at once, as a
# supervisor would; a replica that exits by itself (status 1: its lease
# lost on a loaded machine) is started again too, any other status fails.
#
# 1. FAILOVER_PODS pods (5,000) on FAILOVER_NODES nodes (50, 4 CPUs each):
#    low-priority fillers that fill the nodes, then FAILOVER_HIGH (200)
#    high-priority pods of twice the size, half of which need preemption
#    (two victims each). Then: every pod the API server bound had exactly
#    one binding POST accepted (201; a 409 is a replica losing a race, fine
#    and counted); no pod deleted twice; every high-priority pod bound; no
#    pending pod fits a node; no node overcommitted. Printed: the time from
#    each SIGKILL to the first accepted binding POST read once a replica
#    had acquired the Lease after it (the new leader's first bind), median
#    and worst.
# 2. The same replicas with --controllers=taint-eviction: FAILOVER_TAINTED
#    (10) fresh nodes with 40 pods each, half tolerating the NoExecute taint
#    for 40 s; the taint put on every node with a timeAdded while the
#    leader keeps being killed: each pod deleted once, the intolerant ones
#    at once, the tolerating ones not before their deadline (timeAdded +
#    40 s) and at most FAILOVER_LATE s (20) after it.
#
# No kubelet: a loop deletes for good the pods with a deletionTimestamp,
# straight to the API server (not through the proxy). Stops everything it
# starts, on failure too.
E2E_NAME=failover
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

PODS=${FAILOVER_PODS:-5000}
HIGH=${FAILOVER_HIGH:-200}
NODES=${FAILOVER_NODES:-50}
KILL_EVERY=${FAILOVER_KILL_EVERY:-20}
TIMEOUT=${FAILOVER_TIMEOUT:-1800}
TAINTED=${FAILOVER_TAINTED:-10}
LATE=${FAILOVER_LATE:-20}
LEASE=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler

declare -A rpid=() rident=()
proxy_pid="" kubelet_pid="" create_pid=""
stop_all() {
    local p
    touch "$dir/stop"
    for p in "${rpid[@]}" $create_pid; do kill -9 "$p" 2>/dev/null; done
    for p in $proxy_pid $kubelet_pid; do kill "$p" 2>/dev/null; done
    for p in "${rpid[@]}" $create_pid $proxy_pid $kubelet_pid; do wait "$p" 2>/dev/null; done
    rpid=()
    proxy_pid="" kubelet_pid="" create_pid=""
}
trap 'stop_all; [ -n "${E2E_KEEP:-}" ] && cp "$dir"/*.log "$E2E_KEEP"/ 2>/dev/null; cleanup' EXIT

fo() { python3 "$here/failover.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "$@"; }
now() { date +%s.%N; }

: >"$dir/faults"
python3 "$here/fault_proxy.py" --upstream "$KUBE_URL" --ca "$KUBE_DIR/ca.crt" --control "$dir/faults" \
    --log "$dir/proxy.log" --port-file "$dir/proxy.port" 2>"$dir/proxy.err" &
proxy_pid=$!
check_eval "the fault proxy listens" "wait_for 10 '[ -s \"$dir/proxy.port\" ]'"
sed -e "s|server: .*|server: http://127.0.0.1:$(cat "$dir/proxy.port")|" -e '/certificate-authority:/d' \
    "$dir/scheduler.kubeconfig" >"$dir/proxied.kubeconfig"
fo kubelet "$dir/stop" &
kubelet_pid=$!

cfg=$dir/le.yaml
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaderElect: true, leaseDuration: 5s, renewDeadline: 4s, retryPeriod: 1s}\n' >"$cfg"
extra_args=()
start_replica() {   # name
    "$ms" run --kubeconfig "$dir/proxied.kubeconfig" --config "$cfg" --secure-port=0 \
        --metrics-bind-address "127.0.0.1:$(kube_free_port)" "${extra_args[@]}" >>"$dir/ms-$1.log" 2>&1 &
    rpid[$1]=$!
    rident[$1]=""
}
ident_of() {
    [ -n "${rident[$1]}" ] ||
        rident[$1]=$(grep 'attempting to acquire leader lease' "$dir/ms-$1.log" | tail -n 1 | grep -o 'identity=[^ ]*' | cut -d= -f2 | tr -d '"')
    echo "${rident[$1]}"
}
holder() { kube_api GET "$LEASE" | jq -r '.spec.holderIdentity // ""'; }
kills=0 lost=0 crashed=0
# A replica gone by itself: started again; status 1 is a lost lease.
reap() {
    while replica_gone; do
        if [ "$gone_status" = 1 ]; then lost=$((lost + 1)); else crashed=$((crashed + 1)); fi
        echo "# replica $gone_name exited by itself ($gone_status); started again"
        start_replica "$gone_name"
    done
}
kill_leader() {
    local h rn
    h=$(holder)
    for rn in "${!rpid[@]}"; do
        [ -n "$h" ] && [ "$(ident_of "$rn")" = "$h" ] || continue
        now >>"$dir/kills"
        kill -9 "${rpid[$rn]}"
        wait "${rpid[$rn]}" 2>/dev/null
        kills=$((kills + 1))
        start_replica "$rn"
        return
    done
}
# Until CONDITION holds (checked every 10 s) or TIMEOUT: the leader killed
# every KILL_EVERY s, replicas gone by themselves started again.
churn_leaders() {   # condition timeout
    local t0=$SECONDS next=$KILL_EVERY last_check=0
    while [ $((SECONDS - t0)) -lt "$2" ]; do
        sleep 0.5
        reap
        if [ $((SECONDS - t0)) -ge "$next" ]; then
            next=$((next + KILL_EVERY))
            kill_leader
        fi
        if [ $((SECONDS - last_check)) -ge 10 ]; then
            last_check=$SECONDS
            eval "$1" && return 0
        fi
    done
    return 1
}

prio() { kube_api POST /apis/scheduling.k8s.io/v1/priorityclasses "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"$1\"},\"value\":$2}" >/dev/null; }
prio low 100
prio high 1000
mknodes() { local i; for i in $(seq 1 "$NODES"); do mknode "n$i" memory=64Gi pods=200 || return 1; done; }
check_eval "$NODES nodes created" mknodes

# --- 1. binds and preemption ------------------------------------------------------
# Fillers of 4 * NODES / PODS CPUs fill the nodes but for room for half
# the high-priority pods (twice their size); the other half preempts two
# fillers each.
low=$((PODS - HIGH))
fill_m=$((4000 * NODES / PODS))   # millicores a filler, rounded down
free_m=$((4000 * NODES - fill_m * low))
high_m=$((2 * fill_m))
echo "# $NODES nodes, $low fillers of ${fill_m}m, $HIGH high-priority pods of ${high_m}m (${free_m}m free for them)"
for r in a b c; do start_replica "$r"; done
check_eval "a replica takes the Lease" "wait_for 60 '[ -n \"\$(holder)\" ]'"
: >"$dir/kills"
t_start=$SECONDS
# The high-priority pods come once every filler is bound: created with the
# fillers, they would be placed first and preempt nothing.
(fo pods filler 1 "$low" "${fill_m}m" low && touch "$dir/fillers" &&
    until [ -e "$dir/go-high" ]; do sleep 1; done &&
    fo pods high 1 "$HIGH" "${high_m}m" high && touch "$dir/created") >"$dir/create.log" 2>&1 &
create_pid=$!
cluster_check() { python3 "$here/soak.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" check; }
bound_with() { kube_api GET /api/v1/namespaces/default/pods | jq --arg p "$1" '[.items[] | select((.metadata.name | startswith($p)) and (.spec.nodeName // "") != "")] | length'; }
settled() {
    if [ ! -e "$dir/go-high" ]; then
        [ -e "$dir/fillers" ] && [ "$(bound_with filler-)" = "$low" ] &&
            { touch "$dir/go-high"; echo "# every filler bound after $((SECONDS - t_start)) s ($kills leaders killed)"; }
        return 1
    fi
    [ -e "$dir/created" ] && [ "$(bound_with high-)" = "$HIGH" ] && cluster_check >"$dir/check.txt"
}
churn_leaders settled "$TIMEOUT"
settled_rc=$?
wait "$create_pid"
create_rc=$?
create_pid=""
check_eval "$PODS pods created ($(cat "$dir/create.log" | head -c 200))" '[ "$create_rc" = 0 ]'
check_eval "every high-priority pod bound, no pending pod fits a node, none overcommitted, within ${TIMEOUT} s ($((SECONDS - t_start)) s, $kills leaders killed)" \
    '[ "$settled_rc" = 0 ]'
sed -n '1,10p' "$dir/check.txt"
grep -h 'successfully acquired lease' "$dir"/ms-*.log | sed -n 's/^ts=\([^ ]*\) .*/\1/p' |
    python3 -c 'import sys, datetime
for l in sys.stdin: print(datetime.datetime.fromisoformat(l.strip().replace("Z", "+00:00")).timestamp())' >"$dir/acquired"
python3 "$here/failover.py" proxy-log "$dir/proxy.log" "$dir/kills" "$dir/acquired" >"$dir/figures"
sed 's/^/# /' "$dir/figures"
fig() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$dir/figures"; }
# Every pod the API server has bound now: one accepted binding POST.
kube_api GET /api/v1/namespaces/default/pods | jq -r '.items[] | select((.spec.nodeName // "") != "") | .metadata.name' | sort >"$dir/bound"
awk '$2 == "bind" && $5 == "201" { n = split($4, p, "/"); print p[n - 1] }' "$dir/proxy.log" | sort | uniq -c |
    awk '$1 == 1 { print $2 }' >"$dir/bound-once"
missing=$(comm -23 "$dir/bound" "$dir/bound-once" | wc -l)
check_eval "every one of $(wc -l <"$dir/bound") bound pods had exactly one accepted binding POST ($missing had not)" '[ "$missing" = 0 ]'
check_eval "no pod bound twice ($(fig bind_conflicts) binding POSTs refused 409)" '[ "$(fig pods_bound_twice)" = 0 ]'
check_eval "no victim deleted twice ($(fig deletes_ok) DELETEs accepted for $(fig pods_deleted) pods; twice: $(fig pods_deleted_twice), e.g. $(fig twice_examples))" \
    '[ "$(fig pods_deleted_twice)" = 0 ]'
check_eval "some high-priority pods preempted fillers ($(fig pods_deleted) victims)" '[ "$(fig pods_deleted)" -gt 0 ]'
check_eval "no replica crashed ($lost exited 1 on a lost lease, $crashed otherwise)" '[ "$crashed" = 0 ]'
check_eval "a new leader bound after every SIGKILL with pods to bind (median $(fig kill_to_bind_median) s, worst $(fig kill_to_bind_worst) s over $(fig kill_to_bind_n) of $(fig kills) kills)" \
    '[ "$(fig kill_to_bind_n)" -gt 0 ]'
echo "# phase 1: $((SECONDS - t_start)) s"
kills1=$kills t2=$SECONDS

# --- 2. taint eviction across failovers ----------------------------------------
for rn in "${!rpid[@]}"; do kill -9 "${rpid[$rn]}"; wait "${rpid[$rn]}" 2>/dev/null; unset "rpid[$rn]"; done
extra_args=(--controllers=taint-eviction)
for r in a b c; do start_replica "$r"; done
PH='[{"key":"failover/phase2","value":"x","effect":"NoSchedule"}]'
for i in $(seq 1 "$TAINTED"); do mknode "t$i" memory=64Gi pods=200 taints="$PH" labels='{"failover/phase2":"yes"}'; done
per=$((TAINTED * 40))
# Pods for these nodes only (their nodeSelector; they tolerate the
# NoSchedule taint that keeps phase 1's pods away): half tolerate the
# NoExecute taint for 40 s.
mkpods2() {   # prefix count tolerationSeconds|""
    local i tol
    for i in $(seq 1 "$2"); do
        tol='{"key":"failover/phase2","operator":"Exists","effect":"NoSchedule"}'
        [ -n "$3" ] && tol="$tol,{\"key\":\"failover/noexec\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":$3}"
        printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s-%d"},"spec":{"priorityClassName":"high","nodeSelector":{"failover/phase2":"yes"},"tolerations":[%s],"containers":[{"name":"c","image":"pause","resources":{"requests":{"cpu":"50m","memory":"16Mi"}}}]}}\n' "$1" "$i" "$tol"
    done
}
{ mkpods2 tol $((per / 2)) 40; mkpods2 intol $((per / 2)) ""; } | while read -r body; do
    kube_api POST /api/v1/namespaces/default/pods "$body" >/dev/null
done
bound2() { kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select((.metadata.name | test("^(tol|intol)-")) and (.spec.nodeName // "") != "")] | length'; }
check_eval "the $per pods of phase 2 bound (failovers go on)" "churn_leaders '[ \"\$(bound2)\" = $per ]' 300"
t_taint=$(date +%s)
stamp=$(date -u -d "@$t_taint" +%Y-%m-%dT%H:%M:%SZ)
for i in $(seq 1 "$TAINTED"); do
    curl -s --cacert "$KUBE_DIR/ca.crt" -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" \
        -H 'Content-Type: application/merge-patch+json' -X PATCH "$KUBE_URL/api/v1/nodes/t$i" \
        --data-binary "{\"spec\":{\"taints\":[{\"key\":\"failover/phase2\",\"value\":\"x\",\"effect\":\"NoSchedule\"},{\"key\":\"failover/noexec\",\"value\":\"x\",\"effect\":\"NoExecute\",\"timeAdded\":\"$stamp\"}]}}" >/dev/null
done
echo "# NoExecute taint on $TAINTED nodes, timeAdded $stamp; deadline $((t_taint + 40))"
gone2() { [ "$(kube_api GET /api/v1/namespaces/default/pods | jq '[.items[] | select(.metadata.name | test("^(tol|intol)-"))] | length')" = 0 ]; }
check_eval "every pod of the tainted nodes deleted within $((40 + LATE + 30)) s (failovers go on)" \
    "churn_leaders gone2 $((40 + LATE + 30))"
python3 "$here/failover.py" deletes "$dir/proxy.log" tol "$t_taint" >"$dir/del-tol"
python3 "$here/failover.py" deletes "$dir/proxy.log" intol "$t_taint" >"$dir/del-intol"
check_eval "each of the $per pods deleted once ($(awk '$3 != 1' "$dir/del-tol" "$dir/del-intol" | wc -l) not)" \
    '[ "$(cat "$dir/del-tol" "$dir/del-intol" | awk "\$3 == 1" | wc -l)" = "$per" ]'
read -r early late_max < <(awk -v d=$((t_taint + 40)) '{ x = $2 - d; if (x < -0.5) e++; if (x > m) m = x } END { printf "%d %.1f\n", e, m }' "$dir/del-tol")
check_eval "no tolerating pod deleted before its deadline ($early were)" '[ "$early" = 0 ]'
check_eval "every tolerating pod deleted at most $LATE s after its deadline (latest $late_max s)" \
    "awk -v x=$late_max -v l=$LATE 'BEGIN { exit !(x <= l) }'"
intol_max=$(awk -v t="$t_taint" '{ x = $2 - t; if (x > m) m = x } END { printf "%.1f", m }' "$dir/del-intol")
echo "# intolerant pods deleted at most $intol_max s after the taint; phase 2: $((SECONDS - t2)) s, $((kills - kills1)) leaders killed; $lost lost leases in all"
check_eval "no replica crashed in phase 2 ($crashed)" '[ "$crashed" = 0 ]'
tap_done
