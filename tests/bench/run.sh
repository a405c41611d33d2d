#!/bin/sh
# `make bench`: upstream scheduler_perf's test cases (docs/performance.md) at
# their 5000-node sizes, through `moonsched simulate --generate` (default
# profile, default percentageOfNodesToScore), one process per run, and a
# descheduling pass and the Lua policy benchmarks after them.
# The workload table gives, per test case: upstream's threshold (the pods/s
# its CI expects of kube-scheduler on that workload, from the same
# performance-config.yaml, quoted with its version), moonsched's pods/s over
# the wall clock of the scheduling loop, pods per CPU-second of that loop,
# scheduling attempts per scheduled pod, and peak RSS: medians over RUNS
# runs (heavy shapes: half as many, made odd), after one uncounted warm-up
# run of the first shape. The same table is written as JSON (one workload a
# line) to BENCH_JSON for tests/bench/compare.sh (`make bench-compare`).
# The machine is shared: pods/CPU s is the steadier of the two rates.
#   B           build directory (default build)
#   RUNS        runs per shape (default 5; made odd)
#   BENCH_JSON  where the JSON goes (default $B/bench.json)
#   ONLY        run only the workloads whose name contains this text
set -u
B=${B:-build}
RUNS=${RUNS:-5}
BENCH_JSON=${BENCH_JSON:-$B/bench.json}
ONLY=${ONLY:-}
M="$B/moonsched"
[ -x "$M" ] || { echo "bench: $M is not built" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# median of the numbers on standard input
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field VALUE-LABEL FILE: the number after "LABEL:" in a --stats file
field() { sed -n "s/^$1: *\\([0-9.]*\\).*/\\1/p" "$2"; }

# The load others put on the machine, to judge the figures by.
LOAD=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "bench: load average $LOAD; RUNS=$RUNS" >&2

# Upstream's thresholds: kubernetes master after v1.34, read from
# test/integration/scheduler_perf/{misc,affinity,topology_spreading,volumes}/
# performance-config.yaml (misc at 008b3652, affinity at 1bd6a8f3,
# topology_spreading at 05377107, volumes at 240d43d6); each row names the upstream workload
# whose threshold it quotes and runs that workload's sizes.
UPSTREAM="kubernetes master after v1.34 (scheduler_perf performance-config.yaml)"

# name|upstream threshold (pods/s; - none)|generator spec|heavy (1: half the runs)
# Churn: upstream creates a churn pod every 200 ms while the measured pods
# run; churn-pods is what it creates at its threshold rate (Unschedulable:
# 10000 pods / 590 pods/s * 5/s = 85; PreemptionAsync: 5000 / 570 * 5 = 44;
# SchedulingWithMixedChurn keeps one of each churn object alive).
# PreemptionBasic's 5000-node workload is commented out upstream (it has no
# threshold); SchedulingNodeAffinity keeps 1.20's zone label key (same
# decisions). DefaultTopologySpreading/5000Nodes_10000Pods has no
# threshold upstream (its 5000Nodes_50000Pods has 160).
# SchedulingWithResourceClaimTemplate (dra/performance-config.yaml): 40
# pods/s, not re-read at a pinned commit like the others; its claims are
# generated with the pods (upstream: by the resourceclaim controller).
WORKLOADS='SchedulingBasic/5000Nodes_10000Pods|680|nodes=5000,bound-pods=1000,pods=10000|0
SchedulingPodAntiAffinity/5000Nodes_2000Pods|60|shape=pod-anti-affinity,nodes=5000,bound-pods=1000,pods=2000|0
SchedulingPodAffinity/5000Nodes_5000Pods|35|shape=SchedulingPodAffinity,nodes=5000,bound-pods=5000,pods=5000|0
SchedulingPreferredPodAffinity/5000Nodes_5000Pods|90|shape=SchedulingPreferredPodAffinity,nodes=5000,bound-pods=5000,pods=5000|0
SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods|90|shape=SchedulingPreferredPodAntiAffinity,nodes=5000,bound-pods=5000,pods=5000|0
SchedulingNodeAffinity/5000Nodes_10000Pods|220|shape=node-affinity,nodes=5000,bound-pods=5000,pods=10000|0
TopologySpreading/5000Nodes_5000Pods|460|nodes=5000,zones=3,bound-pods=5000,pods=5000,spread=hard|0
PreferredTopologySpreading/5000Nodes_5000Pods|340|nodes=5000,zones=3,bound-pods=5000,pods=5000,spread=soft|0
DefaultTopologySpreading/5000Nodes_10000Pods|-|shape=DefaultTopologySpreading,nodes=5000,bound-pods=5000,pods=10000|0
MixedSchedulingBasePod/5000Nodes_5000Pods|140|shape=MixedSchedulingBasePod,nodes=5000,bound-pods=2000,pods=5000|0
SchedulingRequiredPodAntiAffinityWithNSSelector/5000Nodes_2000Pods|24|shape=SchedulingRequiredPodAntiAffinityWithNSSelector,nodes=6000,init-namespaces=100,bound-pods=4000,pods=2000|0
SchedulingPreferredAffinityWithNSSelector/5000Nodes_5000Pods|90|shape=SchedulingPreferredAffinityWithNSSelector,nodes=5000,init-namespaces=100,bound-pods=5000,pods=5000|0
Unschedulable/5kNodes/100Init/10kPods|590|shape=Unschedulable,nodes=5000,bound-pods=100,churn-pods=85,pods=10000|0
SchedulingWithMixedChurn/5000Nodes_10000Pods|710|shape=SchedulingWithMixedChurn,nodes=5000,churn-pods=1,pods=10000|0
SchedulingWhileGated/1Node_10000GatedPods|910|shape=SchedulingWhileGated,gated-pods=10000,bound-pods=20000,pods=20000|0
PreemptionBasic/5000Nodes|-|shape=preemption,nodes=5000,bound-pods=20000,pods=5000|1
PreemptionAsync/5000Nodes|570|shape=PreemptionAsync,nodes=5000,bound-pods=20000,churn-pods=44,pods=5000|1
SchedulingCSIPVs/5000Nodes_5000Pods|100|shape=SchedulingCSIPVs,nodes=5000,bound-pods=5000,pods=5000|0
LocalPVsWaitForFirstConsumer/5000Nodes|-|shape=volumes,nodes=5000,pods=5000|0
SchedulingWithResourceClaimTemplate/5000pods_500nodes|40|shape=SchedulingWithResourceClaimTemplate,nodes=500,pods=5000|0'

row() { printf '%-66s %9s %10s %10s %9s %9s\n' "$@"; }
# a JSON number, or null for none
num() { case "$1" in ''|-) echo null ;; *) echo "$1" ;; esac; }
echo "upstream thresholds: $UPSTREAM"
row "workload" "upstream" "pods/s" "pods/CPU s" "attempts" "RSS MiB"
{
    printf '{"load": "%s", "runs": %s, "upstream": "%s", "workloads": [\n' "$LOAD" "$RUNS" "$UPSTREAM"
} >"$T/json"
status=0
warm=0
sep=' '
while IFS='|' read -r label threshold spec heavy; do
    case "$label" in *"$ONLY"*) ;; *) continue ;; esac
    runs=$RUNS
    [ "$heavy" = 1 ] && runs=$((RUNS / 2))
    runs=$((runs / 2 * 2 + 1))   # odd: a median that is one run
    [ "$warm" = 0 ] && "$M" simulate --generate "$spec" --quiet >/dev/null 2>&1
    warm=1
    : >"$T/pps"; : >"$T/cpu"; : >"$T/att"; : >"$T/rss"
    i=0
    while [ "$i" -lt "$runs" ]; do
        i=$((i + 1))
        if ! "$M" simulate --generate "$spec" --quiet --stats >/dev/null 2>"$T/stats"; then
            echo "bench: $label: run failed:" >&2
            cat "$T/stats" >&2
            status=1
            continue
        fi
        field 'pods\/s' "$T/stats" >>"$T/pps"
        field 'pods\/CPU s' "$T/stats" >>"$T/cpu"
        field "peak RSS" "$T/stats" >>"$T/rss"
        awk -v a="$(field attempts "$T/stats")" -v s="$(field scheduled "$T/stats")" \
            'BEGIN { if (s > 0) printf "%.3f\n", a / s }' >>"$T/att"
    done
    pps=$(median <"$T/pps"); cpu=$(median <"$T/cpu"); att=$(median <"$T/att"); rss=$(median <"$T/rss")
    row "$label" "$threshold" "$pps" "$cpu" "$att" "$rss"
    printf '%s{"name": "%s", "threshold": %s, "pods_per_s": %s, "pods_per_cpu_s": %s, "attempts_per_pod": %s, "peak_rss_mib": %s, "runs": %s, "spec": "%s"}\n' \
        "$sep" "$label" "$(num "$threshold")" "$(num "$pps")" "$(num "$cpu")" "$(num "$att")" "$(num "$rss")" "$runs" "$spec" >>"$T/json"
    sep=','
done <<EOF_WORKLOADS
$WORKLOADS
EOF_WORKLOADS
echo ']}' >>"$T/json"
cp "$T/json" "$BENCH_JSON" && echo "bench: table written to $BENCH_JSON" >&2
[ -n "$ONLY" ] && exit $status

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
