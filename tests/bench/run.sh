#!/bin/sh
# `make bench`: scheduler_perf's SchedulingBasic and Preemption shapes, and its
# TopologySpreading / PreferredTopologySpreading workloads (5000 nodes in 3
# zones, 5000 running pods, 2000 spreading pods measured),
# SchedulingPodAntiAffinity (5000 nodes, 1000 setup pods, 1000 measured) and
# SchedulingNodeAffinity (5000 nodes, 5000 setup pods, 1000 measured), a
# volume-heavy shape (5000 nodes, 5000 pods each with its own
# WaitForFirstConsumer claim, one local PV per pod spread over the nodes:
# VolumeBinding matches, assumes and binds every claim), and a
# descheduling pass (5000 nodes, 50,000 bound pods), through
# `moonsched simulate --generate` (default profile, default
# percentageOfNodesToScore). The table shows the median of each figure over
# the runs of a shape. The machine is shared: a short shape (1000 pods take
# about 10 ms at 500 nodes) is easily disturbed, so short shapes run more
# times (each shape's share of RUNS), after one uncounted warm-up run.
# pods/s is over the CPU time of the scheduling loop (simulate's
# `pods/CPU s`): a run that other processes pushed off the CPU for a time
# slice (4 ms here, as long as the whole 500-node shape) is not slower for
# it. CLOCK=wall uses the wall clock instead (simulate's `pods/s`); on an
# idle machine both agree. Latencies are wall-clock per cycle.
#   B      build directory (default build)
#   RUNS   runs of a SchedulingBasic 5000n/10000p-sized shape (default 7;
#          counts are made odd)
#   CLOCK  cpu (default) or wall
set -u
B=${B:-build}
RUNS=${RUNS:-7}
CLOCK=${CLOCK:-cpu}
case "$CLOCK" in
cpu) PPS_LABEL='pods\/CPU s' ;;
wall) PPS_LABEL='pods\/s' ;;
*) echo "bench: CLOCK must be cpu or wall" >&2; exit 2 ;;
esac
M="$B/moonsched"
[ -x "$M" ] || { echo "bench: $M is not built" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# median of the numbers on standard input
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field VALUE-LABEL FILE: the number after "LABEL:" in a --stats file
field() { sed -n "s/^$1: *\\([0-9.]*\\).*/\\1/p" "$2"; }

# The load others put on the machine, to judge the figures by.
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); pods/s over $CLOCK time" >&2

printf '%-28s %10s %12s %12s %10s %9s\n' "workload" "pods/s" "p50 (us)" "p99 (us)" "RSS (MiB)" "scheduled"
status=0
# label|generator spec|runs in percent of RUNS (made odd). scheduler_perf's
# Preemption: nodes full of low-priority pods (bound, four per node), then
# high-priority pods that each preempt three of them; pods/s counts the
# high-priority pods placed (each takes two cycles: the preemption, then
# the placement on the nominated node). Its 5000-node shape takes seconds
# per run: it runs half as often.
for shape in "SchedulingBasic 500n/1000p|nodes=500,pods=1000|400" \
             "SchedulingBasic 5000n/1000p|nodes=5000,pods=1000|200" \
             "SchedulingBasic 5000n/10000p|nodes=5000,pods=10000|100" \
             "TopologySpreading 5000n|nodes=5000,zones=3,bound-pods=5000,pods=2000,spread=hard|100" \
             "PreferredTopoSpreading 5000n|nodes=5000,zones=3,bound-pods=5000,pods=2000,spread=soft|100" \
             "PodAntiAffinity 5000n|shape=pod-anti-affinity,nodes=5000,bound-pods=1000,pods=1000|100" \
             "NodeAffinity 5000n|shape=node-affinity,nodes=5000,bound-pods=5000,pods=1000|200" \
             "Preemption 500n/500p|shape=preemption,nodes=500,bound-pods=2000,pods=500|100" \
             "Preemption 5000n/5000p|shape=preemption,nodes=5000,bound-pods=20000,pods=5000|50" \
             "LocalPVs WFFC 5000n/5000p|shape=volumes,nodes=5000,pods=5000|100"; do
    label=${shape%%|*}
    rest=${shape#*|}
    spec=${rest%|*}
    pct=${rest##*|}
    runs=$((pct * RUNS / 100 / 2 * 2 + 1))   # odd: a median that is one run
    : >"$T/pps"; : >"$T/p50"; : >"$T/p99"; : >"$T/rss"; : >"$T/ok"
    # Short shapes are the easily disturbed ones: they also get a warm-up.
    [ "$pct" -gt 100 ] && "$M" simulate --generate "$spec" --quiet >/dev/null 2>&1
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        if ! "$M" simulate --generate "$spec" --quiet --stats \
            >/dev/null 2>"$T/stats"; then
            echo "bench: run failed:" >&2
            cat "$T/stats" >&2
            status=1
            continue
        fi
        field "$PPS_LABEL" "$T/stats" >>"$T/pps"
        field "latency p50" "$T/stats" >>"$T/p50"
        field "latency p99" "$T/stats" >>"$T/p99"
        field "peak RSS" "$T/stats" >>"$T/rss"
        field "scheduled" "$T/stats" >>"$T/ok"
    done
    printf '%-28s %10s %12s %12s %10s %9s\n' "$label" \
        "$(median <"$T/pps")" "$(median <"$T/p50")" "$(median <"$T/p99")" \
        "$(median <"$T/rss")" "$(median <"$T/ok")"
done

# The descheduler: one pass of LowNodeUtilization and
# RemovePodsViolatingTopologySpreadConstraint (tests/bench/deschedule-policy.yaml)
# over 5000 nodes, 50,000 bound pods packed on half of them, each eviction
# placed by the scheduler first: the pass's wall time, evictions planned per
# second, evictions kept and skipped (medians of 3 runs).
: >"$T/dsec"; : >"$T/dps"; : >"$T/dev"
for i in 1 2 3; do
    if "$M" simulate --generate shape=deschedule,nodes=5000,bound-pods=50000,zones=3 \
        --deschedule tests/bench/deschedule-policy.yaml --output json --stats >/dev/null 2>"$T/stats"; then
        field "deschedule time" "$T/stats" >>"$T/dsec"
        field "evictions\/s" "$T/stats" >>"$T/dps"
        sed -n 's/^descheduled: *\([0-9]*\) evicted.*/\1/p' "$T/stats" >>"$T/dev"
    else
        echo "bench: descheduling run failed:" >&2
        cat "$T/stats" >&2
        status=1
    fi
done
printf '\n%-28s %10s %12s %10s\n' "descheduling" "pass (s)" "evictions/s" "evicted"
printf '%-28s %10s %12s %10s\n' "LowNodeUtil+Spread 5000n" "$(median <"$T/dsec")" "$(median <"$T/dps")" \
    "$(median <"$T/dev")"

# Lua policy against the native plugin: MostAllocated scoring at 5000 nodes
# per pod (target: Lua <= 1.5x native), and the watchdog's stop latency.
if make -s "$B/bench/bench_lua_score" >&2; then
    "$B/bench/bench_lua_score" || status=1
else
    status=1
fi
# What reading labels, annotations and extended resources costs a policy,
# per node at 5000 nodes, over one that reads nothing.
if make -s "$B/bench/bench_lua_labels" >&2; then
    "$B/bench/bench_lua_labels" || status=1
else
    status=1
fi
exit $status
