#!/bin/sh
# `make bench`: scheduler_perf's SchedulingBasic and Preemption shapes, and its
# TopologySpreading / PreferredTopologySpreading workloads (5000 nodes in 3
# zones, 5000 running pods, 2000 spreading pods measured),
# SchedulingPodAntiAffinity (5000 nodes, 1000 setup pods, 1000 measured) and
# SchedulingNodeAffinity (5000 nodes, 5000 setup pods, 1000 measured), through
# `moonsched simulate --generate` (default profile, default
# percentageOfNodesToScore). Each shape runs RUNS times (default 5); the
# table shows the median of each figure over the runs.
#   B      build directory (default build)
#   RUNS   runs per shape (default 5)
set -u
B=${B:-build}
RUNS=${RUNS:-5}
M="$B/moonsched"
[ -x "$M" ] || { echo "bench: $M is not built" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# median of the numbers on standard input
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field VALUE-LABEL FILE: the number after "LABEL:" in a --stats file
field() { sed -n "s/^$1: *\\([0-9.]*\\).*/\\1/p" "$2"; }

printf '%-28s %10s %12s %12s %10s %9s\n' "workload" "pods/s" "p50 (us)" "p99 (us)" "RSS (MiB)" "scheduled"
status=0
# label|generator spec
for shape in "SchedulingBasic 500n/1000p|nodes=500,pods=1000" \
             "SchedulingBasic 5000n/1000p|nodes=5000,pods=1000" \
             "SchedulingBasic 5000n/10000p|nodes=5000,pods=10000" \
             "TopologySpreading 5000n|nodes=5000,zones=3,bound-pods=5000,pods=2000,spread=hard" \
             "PreferredTopoSpreading 5000n|nodes=5000,zones=3,bound-pods=5000,pods=2000,spread=soft" \
             "PodAntiAffinity 5000n|shape=pod-anti-affinity,nodes=5000,bound-pods=1000,pods=1000" \
             "NodeAffinity 5000n|shape=node-affinity,nodes=5000,bound-pods=5000,pods=1000"; do
    label=${shape%%|*}
    spec=${shape#*|}
    : >"$T/pps"; : >"$T/p50"; : >"$T/p99"; : >"$T/rss"; : >"$T/ok"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        i=$((i + 1))
        if ! "$M" simulate --generate "$spec" --quiet --stats \
            >/dev/null 2>"$T/stats"; then
            echo "bench: run failed:" >&2
            cat "$T/stats" >&2
            status=1
            continue
        fi
        field "pods\\/s" "$T/stats" >>"$T/pps"
        field "latency p50" "$T/stats" >>"$T/p50"
        field "latency p99" "$T/stats" >>"$T/p99"
        field "peak RSS" "$T/stats" >>"$T/rss"
        field "scheduled" "$T/stats" >>"$T/ok"
    done
    printf '%-28s %10s %12s %12s %10s %9s\n' "$label" \
        "$(median <"$T/pps")" "$(median <"$T/p50")" "$(median <"$T/p99")" \
        "$(median <"$T/rss")" "$(median <"$T/ok")"
done

# scheduler_perf's Preemption: nodes full of low-priority pods (bound, four
# per node), then high-priority pods that each preempt three of them.
# pods/s counts the high-priority pods placed (each takes two cycles: the
# preemption, then the placement on the nominated node).
for shape in "500 2000 500" "5000 20000 5000"; do
    set -- $shape
    nodes=$1 init=$2 pods=$3
    : >"$T/pps"; : >"$T/p50"; : >"$T/p99"; : >"$T/rss"; : >"$T/ok"
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        i=$((i + 1))
        if ! "$M" simulate --generate "shape=preemption,nodes=$nodes,bound-pods=$init,pods=$pods" \
            --quiet --stats >/dev/null 2>"$T/stats"; then
            echo "bench: run failed:" >&2
            cat "$T/stats" >&2
            status=1
            continue
        fi
        field "pods\\/s" "$T/stats" >>"$T/pps"
        field "latency p50" "$T/stats" >>"$T/p50"
        field "latency p99" "$T/stats" >>"$T/p99"
        field "peak RSS" "$T/stats" >>"$T/rss"
        field "scheduled" "$T/stats" >>"$T/ok"
    done
    printf '%-28s %10s %12s %12s %10s %9s\n' "Preemption ${nodes}n/${pods}p" \
        "$(median <"$T/pps")" "$(median <"$T/p50")" "$(median <"$T/p99")" \
        "$(median <"$T/rss")" "$(median <"$T/ok")"
done

# Lua policy against the native plugin: MostAllocated scoring at 5000 nodes
# per pod (target: Lua <= 1.5x native), and the watchdog's stop latency.
if make -s "$B/bench/bench_lua_score" >&2; then
    "$B/bench/bench_lua_score" || status=1
else
    status=1
fi
exit $status
