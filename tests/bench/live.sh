#!/bin/bash
# moonsched run against upstream kube-scheduler v1.20.2 and the no-op binder
# (noop_binder.c: one Binding and one Event per pod, nothing else) on a real
# kube-apiserver: NODES nodes, PODS pods pending before the scheduler
# starts, RUNS runs each (pods recreated between runs). Prints per run the
# wall time from scheduler start until every pod is bound (the last
# binding as a watch started before the scheduler sees it), pods/s, the
# scheduler's CPU seconds (utime+stime) and peak RSS (VmHWM), then medians
# and the ratios moonsched/upstream and moonsched/ceiling. Both schedulers
# use qps=burst=5000. The no-op binder runs once per concurrency level in
# NOOP_LEVELS (IN_FLIGHT:STREAMS per connection) in each run; the ceiling
# of a run is the best of its levels, so that no one client setting stands
# for what the API server accepts.
set -u
NODES=${NODES:-1000} PODS=${PODS:-5000} RUNS=${RUNS:-3}
NOOP_LEVELS=${NOOP_LEVELS:-16:16 32:32 64:64 64:16}
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
source "$here/../e2e/kube-env.sh"
dir=$(mktemp -d /tmp/ms-bench-live.XXXXXX)
sched_pid="" waiter=""
# one_run runs in a pipeline's subshell, whose variables this shell does not
# see: the processes it starts are listed in $dir/pids until it stops them.
cleanup() {
    [ -n "$sched_pid" ] && kill -9 "$sched_pid" 2>/dev/null
    [ -n "$waiter" ] && kill "$waiter" 2>/dev/null
    [ -s "$dir/pids" ] && xargs kill -9 <"$dir/pids" 2>/dev/null
    kube_stop "$dir"; rm -rf "$dir"
}
trap cleanup EXIT
KUBE_BIN=$bin kube_start "$dir" >"$dir/start.log" 2>&1 || { cat "$dir/start.log"; exit 1; }
load() { python3 "$here/live_load.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "$@"; }
# in the background, the pid taken is python's own, so that a kill reaches it
load_exec() { exec python3 "$here/live_load.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "$@"; }
echo "# nodes=$NODES pods=$PODS runs=$RUNS no-op binder levels (in flight:streams/connection)=$NOOP_LEVELS"
load nodes "$NODES" || exit 1

cat >"$dir/upstream.yaml" <<Y
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: $dir/scheduler.kubeconfig, qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
Y
cat >"$dir/moonsched.yaml" <<Y
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 5000, burst: 5000}
leaderElection: {leaderElect: false}
Y

clk=$(getconf CLK_TCK)
one_run() {   # name [in_flight streams]
    load clear; load pods "$PODS" || exit 1
    local t0 t1
    # the end: seen on a watch started before the scheduler, not polled
    load_exec wait-bound >"$dir/bound" 2>&1 &
    waiter=$!
    echo "$waiter" >>"$dir/pids"
    until grep -q ready "$dir/bound"; do
        kill -0 "$waiter" 2>/dev/null || { echo "# wait-bound died"; cat "$dir/bound"; exit 1; }
        sleep 0.05
    done
    t0=$(date +%s.%N)
    if [ "$1" = noop ]; then
        "$B/bench/noop_binder" "$KUBE_URL" "$dir/ca.crt" "$dir/admin.token" default-scheduler "$2" "$3" \
            >"$dir/$1.log" 2>&1 &
    elif [ "$1" = upstream ]; then
        "$bin/kube-scheduler" --config "$dir/upstream.yaml" --port=0 --secure-port=0 -v=0 >"$dir/$1.log" 2>&1 &
    else
        "$B/moonsched" run --kubeconfig "$dir/scheduler.kubeconfig" --config "$dir/moonsched.yaml" --secure-port=0 >"$dir/$1.log" 2>&1 &
    fi
    sched_pid=$!
    echo "$sched_pid" >>"$dir/pids"
    while kill -0 "$waiter" 2>/dev/null; do
        kill -0 "$sched_pid" 2>/dev/null || { echo "# $1 died"; tail -5 "$dir/$1.log"; kill "$waiter"; exit 1; }
        sleep 0.1
    done
    wait "$waiter" || { echo "# wait-bound failed"; cat "$dir/bound"; exit 1; }
    waiter=""
    t1=$(tail -1 "$dir/bound")
    local cpu rss
    cpu=$(awk -v c="$clk" '{print ($14 + $15) / c}' "/proc/$sched_pid/stat")
    rss=$(awk '/VmHWM/ {print $2 / 1024}' "/proc/$sched_pid/status")
    kill "$sched_pid"; wait "$sched_pid" 2>/dev/null; sched_pid=""
    : >"$dir/pids"
    # its binds answered 409 (pods bound twice after a new watch) and Events
    [ "$1" = noop ] && sed 's/^/# /' "$dir/$1.log"
    awk -v n="$1${2:+ $2:$3}" -v a="$t0" -v b="$t1" -v p="$PODS" -v c="$cpu" -v r="$rss" \
        'BEGIN { w = b - a; printf "%-12s wall %7.2f s  %8.1f pods/s  cpu %6.2f s  rss %7.1f MiB\n", n, w, p / w, c, r }'
}
med() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for i in $(seq 1 "$RUNS"); do
    one_run upstream | tee -a "$dir/upstream.res"
    one_run moonsched | tee -a "$dir/moonsched.res"
    for l in $NOOP_LEVELS; do
        one_run noop "${l%:*}" "${l#*:}" | tee -a "$dir/noop.$i.res"
    done
    # the run's ceiling: its fastest level
    sort -g -k6 "$dir/noop.$i.res" | tail -1 | sed 's/^noop \([0-9:]*\) */ceiling@\1 /' | tee -a "$dir/ceiling.res"
done
for s in upstream moonsched ceiling; do
    eval "${s}_pps=$(awk '/ wall / {print $5}' "$dir/$s.res" | med)"
    eval "${s}_cpu=$(awk '/ wall / {print $8}' "$dir/$s.res" | med)"
    eval "${s}_rss=$(awk '/ wall / {print $11}' "$dir/$s.res" | med)"
    eval "echo \"median $s: \$${s}_pps pods/s, cpu \$${s}_cpu s, rss \$${s}_rss MiB\""
done
awk -v a="$moonsched_pps" -v b="$upstream_pps" -v c="$moonsched_cpu" -v d="$upstream_cpu" -v e="$moonsched_rss" -v f="$upstream_rss" \
    'BEGIN { printf "moonsched/upstream: pods/s x%.2f (target >= 2), cpu x%.3f (target <= 0.1), rss x%.3f (target <= 0.2)\n", a / b, c / d, e / f }'
awk -v a="$moonsched_pps" -v b="$ceiling_pps" \
    'BEGIN { printf "moonsched/ceiling (best no-op binder level of each run): pods/s %.0f%% (target >= 90%%)\n", 100 * a / b }'
