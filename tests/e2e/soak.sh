#!/bin/bash
# The soak (`make soak`, docs/reliability.md): `moonsched run` for
# SOAK_MINUTES (default 30; or SOAK_SECONDS) against a real kube-apiserver
# v1.20.2 + etcd on loopback under continuous churn (tests/e2e/soak.py:
# pods created and deleted, a node added, removed, cordoned or tainted every
# SOAK_NODE_EVERY s (10), the policy file replaced by a good or a broken
# version in turn every SOAK_POLICY_EVERY s (30)), the API server SIGKILLed
# and started again on the same etcd and port SOAK_RESTARTS times (default
# 1, evenly spread: half-way for one).
#
# SOAK_FAILOVER_EVERY (seconds, default 0: one replica without leader
# election): SOAK_REPLICAS (3) replicas elect a leader with upstream's
# durations (15 s / 10 s / 2 s); every SOAK_FAILOVER_EVERY s the holder of
# the Lease is SIGKILLed and, as a supervisor would, a new replica started
# in its place once the policy file holds a good version (a broken one
# would stop its start). A replica that exits by itself is replaced too:
# status 1 (the lease lost, as across an API server restart) is counted,
# anything else fails. The takeover time (the SIGKILL to a new holder) and
# the new holder are printed for each failover (tests/e2e/soak_summary.py
# summarizes the log: per replica and per leader spell). Samples are taken from every replica; the
# flatness checks judge every replica with 10 samples or more (else the
# one with the most).
#
# Every SOAK_INTERVAL seconds (default 60) one line: the scheduler's RSS
# (the lower of two readings 2 s apart), open file descriptors and threads, pods bound and pending, nodes, policy
# reloads, the C heap in use and free in its arenas (/metrics). At the end (TAP; the exit status is non-zero on any failure):
# the process is alive after every sample; RSS, descriptors and threads are
# flat: the highest of the last 10 samples (the last third when there are
# fewer than 30) is at most the highest of the 3 samples after the warm-up
# (the first 5 samples, or the first sixth of a shorter run) plus
# SOAK_RSS_SLACK_KIB (default 8192), SOAK_FD_SLACK (default 4) and
# SOAK_THREAD_SLACK (default 1); once the churn stops, within 90 s no
# pending pod fits a node and no node's bound pods exceed its allocatable
# (checked every sample too); every policy version written was swapped in
# or refused, as it was good or broken. Stops everything it starts.
E2E_NAME=soak
SOAK_MINUTES=${SOAK_MINUTES:-30}
SOAK_INTERVAL=${SOAK_INTERVAL:-60}
SOAK_RSS_SLACK_KIB=${SOAK_RSS_SLACK_KIB:-8192}
SOAK_FD_SLACK=${SOAK_FD_SLACK:-4}
SOAK_THREAD_SLACK=${SOAK_THREAD_SLACK:-1}
# Asked for by name (`make soak`): without an API server that is a failure,
# not the skip of the suites.
kube=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
if [ ! -x "$kube/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    printf 'not ok 1 - kube-apiserver and etcd (tests/e2e/build-kube.sh)\n1..1\n'
    exit 1
fi
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

api() { python3 "$here/soak.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "$@"; }
SOAK_RESTARTS=${SOAK_RESTARTS:-1}
SOAK_FAILOVER_EVERY=${SOAK_FAILOVER_EVERY:-0}
if [ "$SOAK_FAILOVER_EVERY" -gt 0 ]; then SOAK_REPLICAS=${SOAK_REPLICAS:-3}; else SOAK_REPLICAS=1; fi
LEASE=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler

# Replicas by number: pid, metrics port, identity, samples (space separated),
# the policy versions written when it started.
declare -A rpid=() rport=() rrss=() rfds=() rthr=() rgood0=() rbroken0=() rident=()
nrep=0
metric() { curl -s "http://127.0.0.1:${rport[$1]}/metrics" | awk -v k="$2" '$1 == k { print $2 }'; }
reloads() { metric "$1" "moonsched_policy_reloads_total{plugin=\"lua:soak\",profile=\"default-scheduler\",result=\"$2\"}"; }
heap_kib() { metric "$1" "moonsched_heap_$2_bytes" | awk '{ printf "%d", $1 / 1024 }'; }
status_field() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
churn_stat() { python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))[sys.argv[2]])
except Exception: print(0)' "$dir/churn.json" "$1"; }
holder() { kube_api GET "$LEASE" | python3 -c 'import json,sys
try: print(json.load(sys.stdin)["spec"].get("holderIdentity") or "")
except Exception: print("")'; }
start_replica() {
    local rn=$((++nrep)) le=false
    [ "$SOAK_FAILOVER_EVERY" -gt 0 ] && le=true
    # A replica starts on a good version only (a broken one is an error at
    # start): the churn writes good and broken ones in turn.
    if [ "$le" = true ]; then
        for _ in $(seq 1 $((${SOAK_POLICY_EVERY:-30} * 3))); do
            [ $((($(churn_stat policy_good) + $(churn_stat policy_broken)) % 2)) = 0 ] && break
            sleep 1
        done
    fi
    rgood0[$rn]=$(churn_stat policy_good) rbroken0[$rn]=$(churn_stat policy_broken)
    rport[$rn]=$(kube_free_port)
    "$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --secure-port=0 --leader-elect=$le \
        --metrics-bind-address "127.0.0.1:${rport[$rn]}" --plain-metrics --policy "$dir/soak.lua" >>"$dir/ms-$rn.log" 2>&1 &
    rpid[$rn]=$! rrss[$rn]="" rfds[$rn]="" rthr[$rn]="" rident[$rn]=""
    echo "# replica $rn started: pid ${rpid[$rn]}, log $dir/ms-$rn.log"
}
ident_of() {
    [ -n "${rident[$1]}" ] || rident[$1]=$(grep -m1 -o 'identity=[^ ]*' "$dir/ms-$1.log" 2>/dev/null | cut -d= -f2 | tr -d '"')
    echo "${rident[$1]}"
}
leader_replica() {
    local h rn
    h=$(holder)
    [ -n "$h" ] || return 1
    for rn in "${!rpid[@]}"; do [ "$(ident_of "$rn")" = "$h" ] && { echo "$rn"; return 0; }; done
    return 1
}
churn_pid=""
soak_cleanup() {
    touch "$dir/stop"
    if [ -n "$churn_pid" ]; then kill "$churn_pid" 2>/dev/null; wait "$churn_pid" 2>/dev/null; fi
    local p
    for p in "${rpid[@]}"; do kill -9 "$p" 2>/dev/null; done
    for p in "${rpid[@]}"; do wait "$p" 2>/dev/null; done
    # (E2E_KEEP=DIR: the logs are copied there at the end, for a look)
    [ -n "${E2E_KEEP:-}" ] && cp "$dir"/*.log "$dir/churn.json" "$E2E_KEEP"/ 2>/dev/null
    cleanup
}
trap soak_cleanup EXIT

api policy "$dir" 0
seconds=${SOAK_SECONDS:-$((SOAK_MINUTES * 60))}
api churn "$dir" "$seconds" "${SOAK_NODE_EVERY:-10}" "${SOAK_POLICY_EVERY:-30}" >"$dir/churn.log" 2>&1 &
churn_pid=$!
for ((k = 0; k < SOAK_REPLICAS; k++)); do start_replica; done
echo "# $seconds s, SOAK_INTERVAL=$SOAK_INTERVAL, $SOAK_RESTARTS API server restarts, failover every $SOAK_FAILOVER_EVERY s, $SOAK_REPLICAS replicas"
echo "# sample  elapsed_s  replica  rss_kib  fds  threads  bound  pending  nodes  reloads_ok  reloads_refused  heap_used_kib  heap_free_kib"

start=$SECONDS
samples=$(((seconds + SOAK_INTERVAL - 1) / SOAK_INTERVAL))
restarts_done=0 restarts_ok=0 alive=1 overcommit=0 failovers=0 lease_lost=0 crashed=0
takeovers=()
next_failover=$SOAK_FAILOVER_EVERY
# A replica gone without being asked: replaced; status 1 is a lost lease.
reap() {
    while replica_gone; do
        echo "# replica $gone_name exited by itself with status $gone_status at $((SECONDS - start)) s"
        if [ "$gone_status" = 1 ] && [ "$SOAK_FAILOVER_EVERY" -gt 0 ]; then lease_lost=$((lease_lost + 1)); else crashed=$((crashed + 1)); fi
        unset "rpid[$gone_name]"
        if [ "$SOAK_FAILOVER_EVERY" -gt 0 ]; then start_replica; else alive=0; fi
    done
}
failover() {
    local rn t0 h old
    rn=$(leader_replica) || { echo "# failover at $((SECONDS - start)) s: no leader known, skipped"; return; }
    old=$(ident_of "$rn")
    t0=$(date +%s.%N)
    kill -9 "${rpid[$rn]}"
    wait "${rpid[$rn]}" 2>/dev/null
    unset "rpid[$rn]"
    failovers=$((failovers + 1))
    for _ in $(seq 1 600); do
        h=$(holder)
        [ -n "$h" ] && [ "$h" != "$old" ] && break
        sleep 0.2
    done
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    takeovers+=("$t")
    # (the new holder named for tests/e2e/soak_summary.py's leader spells)
    echo "# failover $failovers at $((SECONDS - start)) s: replica $rn SIGKILLed, new holder after $t s" \
        "(replica $(leader_replica || echo "?"))"
    start_replica
}
for ((i = 1; i <= samples; i++)); do
    while [ $((SECONDS - start)) -lt $((i * SOAK_INTERVAL)) ]; do
        sleep 1
        if [ "$restarts_done" -lt "$SOAK_RESTARTS" ] &&
            [ $((SECONDS - start)) -ge $((seconds * (restarts_done + 1) / (SOAK_RESTARTS + 1))) ]; then
            restarts_done=$((restarts_done + 1))
            t0=$SECONDS
            # (same etcd and port: the kubeconfigs keep working)
            if KUBE_BIN=$bin kube_restart_apiserver "$dir" >>"$dir/start.log" 2>&1; then restarts_ok=$((restarts_ok + 1)); fi
            echo "# the API server SIGKILLed and started again on the same etcd ($restarts_done): ready after $((SECONDS - t0)) s"
        fi
        if [ "$SOAK_FAILOVER_EVERY" -gt 0 ] && [ $((SECONDS - start)) -ge "$next_failover" ] &&
            [ $((SECONDS - start)) -lt $((seconds - 60)) ]; then
            next_failover=$((next_failover + SOAK_FAILOVER_EVERY))
            failover
        fi
        reap
    done
    [ "$alive" = 1 ] || break
    read -r bound pending nodes < <(api count)
    for rn in $(printf '%s\n' "${!rpid[@]}" | sort -n); do
        p=${rpid[$rn]}
        # The lower of two readings 2 s apart: a policy version being loaded may
        # hold up to its memory cap (64 MiB) for a moment; what stays counts.
        r1=$(status_field "$p" VmRSS)
        sleep 2
        r2=$(status_field "$p" VmRSS)
        if [ -z "$r1" ] || [ -z "$r2" ]; then continue; fi
        r=$((r1 < r2 ? r1 : r2)) th=$(status_field "$p" Threads)
        fd=$(find "/proc/$p/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
        rrss[$rn]+="$r " rfds[$rn]+="$fd " rthr[$rn]+="$th "
        printf '# %6d %10d %8d %8d %4d %8d %6s %8s %6s %11s %16s %13s %14s\n' "$i" $((SECONDS - start)) "$rn" "$r" \
            "$fd" "$th" "$bound" "$pending" "$nodes" "$(reloads "$rn" ok)" "$(reloads "$rn" refused)" \
            "$(heap_kib "$rn" inuse)" "$(heap_kib "$rn" free)"
    done
    if ! api check >"$dir/check.txt"; then
        grep -q overcommitted "$dir/check.txt" && overcommit=$((overcommit + 1))
    fi
done
touch "$dir/stop"
wait "$churn_pid"
churn_pid=""

check_eval "every replica stayed alive through $samples samples, or lost its lease and exited 1 ($lease_lost times)" \
    '[ "$alive" = 1 ] && [ "$crashed" = 0 ]'
check_eval "the API server was SIGKILLed and started again $SOAK_RESTARTS times" \
    '[ "$restarts_ok" = "$SOAK_RESTARTS" ]'
if [ "$SOAK_FAILOVER_EVERY" -gt 0 ]; then
    echo "# takeovers (s): ${takeovers[*]}"
    # (none due when SOAK_FAILOVER_EVERY outlasts the run: one long leader)
    due=0
    [ "$SOAK_FAILOVER_EVERY" -lt $((seconds - 60)) ] && due=1
    check_eval "every one of $failovers failovers found a new leader" \
        '[ "$failovers" -ge "$due" ] && ! printf "%s\n" "${takeovers[@]}" | awk "\$1 >= 120 { bad = 1 } END { exit !bad }"'
fi
check_eval "no sample found a node overcommitted" '[ "$overcommit" = 0 ]'
echo "# churn: $(cat "$dir/churn.json")"

# Flat: the last window's highest against the highest just after warm-up.
flat() {   # name slack values...
    local name=$1 slack=$2
    shift 2
    local v=("$@") n=$# warm base_max=0 end_max=0 w k
    warm=$((n / 6 < 5 ? n / 6 : 5))
    w=$((n >= 30 ? 10 : n / 3))
    [ "$w" -ge 1 ] || w=1
    for ((k = warm; k < warm + 3 && k < n; k++)); do [ "${v[k]}" -gt "$base_max" ] && base_max=${v[k]}; done
    for ((k = n - w; k < n; k++)); do [ "${v[k]}" -gt "$end_max" ] && end_max=${v[k]}; done
    echo "# $name: after warm-up (samples $((warm + 1))-$((warm + 3))) max $base_max, last $w samples max $end_max, slack $slack"
    [ "$end_max" -le $((base_max + slack)) ]
}
# Judged: every replica with 10 samples or more (a leader lives shorter
# than a standby under failovers, and only a leader schedules), else the
# one with the most.
judged=() bestn=0 best=""
for rn in $(printf '%s\n' "${!rrss[@]}" | sort -n); do
    read -ra v <<<"${rrss[$rn]}"
    [ "${#v[@]}" -ge 10 ] && judged+=("$rn")
    if [ "${#v[@]}" -gt "$bestn" ]; then best=$rn bestn=${#v[@]}; fi
done
[ "${#judged[@]}" -gt 0 ] || judged=("$best")
flat_all() {   # name slack samples-array-name
    local rn ok=0 vals
    local -n series=$3
    for rn in "${judged[@]}"; do
        read -ra vals <<<"${series[$rn]}"
        echo "# replica $rn, ${#vals[@]} samples:"
        flat "$1" "$2" "${vals[@]}" || ok=1
    done
    return $ok
}
if [ "$bestn" -ge 3 ]; then
    check_eval "RSS flat (KiB), replicas ${judged[*]}" 'flat_all rss "$SOAK_RSS_SLACK_KIB" rrss'
    check_eval "open file descriptors flat, replicas ${judged[*]}" 'flat_all fds "$SOAK_FD_SLACK" rfds'
    check_eval "threads flat, replicas ${judged[*]}" 'flat_all threads "$SOAK_THREAD_SLACK" rthr'
else
    not_ok "at least 3 samples of one replica to judge RSS, descriptors and threads (got $bestn)"
fi

t0=$SECONDS
check_eval "once the churn stops, no pending pod fits a node and none is overcommitted" \
    "WAIT_POLL=5 wait_for 90 'api check >\"\$dir/check.txt\"'"
sed -n '1,20p' "$dir/check.txt"
echo "# settled after $((SECONDS - t0)) s; bound pending nodes: $(api count)"
good=$(churn_stat policy_good)
broken=$(churn_stat policy_broken)
# Each replica saw the versions written after it started (one either way:
# a version written while it started is loaded, not reloaded).
reloads_match() {
    local rn g b ok ref
    for rn in "${!rpid[@]}"; do
        g=$((good - rgood0[$rn])) b=$((broken - rbroken0[$rn]))
        ok=$(reloads "$rn" ok) ref=$(reloads "$rn" refused)
        [ "${ok:-0}" -le "$g" ] && [ "${ok:-0}" -ge $((g - 1)) ] &&
            [ "${ref:-0}" -le "$b" ] && [ "${ref:-0}" -ge $((b - 1)) ] || return 1
    done
}
check_eval "every policy version written was swapped in ($good good) or refused ($broken broken)" \
    "wait_for 10 reloads_match"
for rn in $(printf '%s\n' "${!rpid[@]}" | sort -n); do
    echo "# replica $rn: reloads ok $(reloads "$rn" ok), refused $(reloads "$rn" refused) (started after $((rgood0[$rn] + rbroken0[$rn])) versions)"
    echo "# replica $rn: schedule attempts: $(curl -s "http://127.0.0.1:${rport[$rn]}/metrics" | awk '/^scheduler_schedule_attempts_total/ { printf "%s ", $0 }')"
done
# What the scheduler complained about, by message (refused reloads are the
# broken versions).
cat "$dir"/ms-*.log >"$dir/ms.log"
echo "# log: $(grep -c 'level=error' "$dir/ms.log") error lines, $(grep -c 'level=warn' "$dir/ms.log") warnings:"
grep -E 'level=(error|warn)' "$dir/ms.log" | sed -n 's/.* msg=\("[^"]*"\|[^ ]*\).*/\1/p' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/#   /'
stop_all_term() {
    local rn rc=0
    for rn in "${!rpid[@]}"; do kill -TERM "${rpid[$rn]}" 2>/dev/null; done
    for rn in "${!rpid[@]}"; do wait "${rpid[$rn]}" || rc=1; unset "rpid[$rn]"; done
    return $rc
}
check_eval "every replica exits 0 on SIGTERM" "stop_all_term"
tap_done
