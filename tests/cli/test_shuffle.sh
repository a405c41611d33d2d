#!/bin/sh
# Order independence, a property over random clusters: the same cluster
# file with its objects shuffled gives the same result. For every
# descheduler strategy, `simulate --deschedule` evicts and skips the same
# pods for the same reasons, with the same utilisation before and after;
# for the scheduler, `simulate --seed N` makes the same placements and
# preemptions (the seed fixes upstream's random choice among nodes of
# equal score). The clusters come from tests/cli/random_cluster.awk, the
# orders from tests/cli/shuffle_docs.awk, both seeded: a failure names the
# seeds that reproduce it. TAP output. B: the build directory (default:
# build); SHUFFLE_CLUSTERS: how many clusters (default 10).
. tests/lib/cli.sh

tap_need "$M"
CLUSTERS=${SHUFFLE_CLUSTERS:-10}

# One policy per strategy, with limits low enough that which pods come
# first decides which go.
policy() {   # name point args
    cat >"$T/$1.yaml" <<POLICY
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
maxNoOfPodsToEvictPerNode: 2
maxNoOfPodsToEvictTotal: 4
profiles:
- name: p
  pluginConfig:
  - {name: DefaultEvictor, args: {evictLocalStoragePods: true}}
  - {name: $1, args: {$3}}
  plugins:
    $2: {enabled: [$1]}
POLICY
}
policy RemovePodsViolatingNodeTaints deschedule "includePreferNoSchedule: true"
policy RemovePodsViolatingNodeAffinity deschedule "nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution]"
policy RemovePodsViolatingInterPodAntiAffinity deschedule ""
policy PodLifeTime deschedule "maxPodLifeTimeSeconds: 86400"
policy RemoveFailedPods deschedule "minPodLifetimeSeconds: 0"
policy RemovePodsHavingTooManyRestarts deschedule "podRestartThreshold: 3, includingInitContainers: true"
policy RemoveDuplicates balance ""
policy LowNodeUtilization balance "thresholds: {cpu: 35, memory: 35, pods: 35}, targetThresholds: {cpu: 50, memory: 50, pods: 50}"
policy HighNodeUtilization balance "thresholds: {cpu: 40, memory: 40}"
policy RemovePodsViolatingTopologySpreadConstraint balance "constraints: [DoNotSchedule, ScheduleAnyway]"
STRATEGIES="RemovePodsViolatingNodeTaints RemovePodsViolatingNodeAffinity RemovePodsViolatingInterPodAntiAffinity
PodLifeTime RemoveFailedPods RemovePodsHavingTooManyRestarts RemoveDuplicates LowNodeUtilization HighNodeUtilization
RemovePodsViolatingTopologySpreadConstraint"

# The utilisation tables list the nodes in the file's order: rows, not
# results. The evictions and skips keep the order they were decided in.
ROWS='.before |= (. // [] | sort_by(.node)) | .after |= (. // [] | sort_by(.node))'
PLACED='.placements |= sort_by(.pod) | .preemptions |= sort_by(.preemptor) | .nodes |= sort_by(.name)'

# report OUT FILTER ARGS...: simulate's JSON through jq; false when
# simulate fails (a crash must not read as two equal empty outputs).
report() {
    _out=$1 _filter=$2
    shift 2
    "$M" simulate "$@" --output json >"$T/raw.json" 2>"$T/raw.err" && jq -S "$_filter" "$T/raw.json" >"$_out"
}

# differs NAME A B: the first line where two outputs part, for the report.
differs() { diff "$2" "$3" | head -n 6 | sed "s/^/$1: /"; }

# property NAME FILTER COUNT ARGS...: each random cluster, and each in two
# other orders, through simulate with ARGS; sets $bad to the seeds whose
# results differ (or fail) and $total to the sum of COUNT (a jq
# expression) over the clusters.
property() {
    _name=$1 _filter=$2 _count=$3
    shift 3
    bad="" total=0 c=1
    while [ "$c" -le "$CLUSTERS" ]; do
        awk -v seed="$c" -f tests/cli/random_cluster.awk >"$T/c.yaml"
        report "$T/a.json" "$_filter" --cluster "$T/c.yaml" "$@" ||
            bad="$bad cluster=$c:failed($(head -c 200 "$T/raw.err"))"
        for order in $((c * 100 + 1)) $((c * 100 + 2)); do
            awk -v seed="$order" -f tests/cli/shuffle_docs.awk "$T/c.yaml" >"$T/s.yaml"
            if ! report "$T/b.json" "$_filter" --cluster "$T/s.yaml" "$@"; then
                bad="$bad cluster=$c,order=$order:failed($(head -c 200 "$T/raw.err"))"
            elif ! cmp -s "$T/a.json" "$T/b.json"; then
                bad="$bad cluster=$c,order=$order"
                differs "$_name cluster $c order $order" "$T/a.json" "$T/b.json" >>"$T/why"
            fi
        done
        _k=$(jq "$_count" "$T/a.json" 2>/dev/null)
        total=$((total + ${_k:-0}))
        c=$((c + 1))
    done
}

for s in $STRATEGIES; do
    property "$s" "$ROWS" '.evictions | length' --deschedule "$T/$s.yaml"
    if [ -z "$bad" ]; then ok "$s: same evictions and skips in every order ($CLUSTERS clusters, $total evictions)"
    else not_ok "$s: the order changed the result:$bad" "$(grep "^$s" "$T/why" | head -n 12)"; fi
done

property scheduler "$PLACED" '.placements | length' --seed 7
if [ -z "$bad" ]; then ok "scheduler: same placements and preemptions in every order under --seed 7 ($CLUSTERS clusters, $total pending pods)"
else not_ok "scheduler: the order changed the placements:$bad" "$(grep "^scheduler" "$T/why" | head -n 12)"; fi

tap_done
