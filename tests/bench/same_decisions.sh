#!/bin/sh
# Whether two builds decide alike: `simulate --output json` of binary A and
# of binary B compared byte for byte on every examples/cluster*.yaml with
# each examples/scheduler-config*.yaml (and none), and on every workload of
# tests/bench/run.sh with its sizes divided by DIV (default 10), two seeds
# each. Prints one line per difference and a count; exit 1 when any.
#   tests/bench/same_decisions.sh OLD/moonsched NEW/moonsched
set -u
A=$1
B=$2
DIV=${DIV:-10}
HERE=$(dirname "$0")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
runs=0
diffs=0
same() {   # label, simulate arguments...
    label=$1
    shift
    "$A" simulate --output json "$@" >"$T/a" 2>"$T/ae"
    ra=$?
    "$B" simulate --output json "$@" >"$T/b" 2>"$T/be"
    rb=$?
    runs=$((runs + 1))
    if [ $ra -ne $rb ] || ! cmp -s "$T/a" "$T/b"; then
        diffs=$((diffs + 1))
        echo "differs: $label ($ra/$rb): $*"
    fi
}
for seed in 1 7; do
    for cl in "$HERE"/../../examples/cluster*.yaml; do
        same "$(basename "$cl") seed $seed" --cluster "$cl" --seed $seed
        for cf in "$HERE"/../../examples/scheduler-config*.yaml; do
            same "$(basename "$cl") $(basename "$cf") seed $seed" --cluster "$cl" --config "$cf" --seed $seed
        done
    done
    sed -n "/^WORKLOADS='/,/'\$/p" "$HERE/run.sh" | sed "s/^WORKLOADS='//; s/'\$//" |
        while IFS='|' read -r label threshold spec heavy; do echo "$label|$spec"; done >"$T/w"
    while IFS='|' read -r label spec; do
        small=$(echo "$spec" | tr ',' '\n' | awk -F= -v d="$DIV" '
            $1 ~ /^(nodes|bound-pods|pods|churn-pods|gated-pods|init-namespaces)$/ {
                v = int($2 / d); if (v < 1) v = 1; print $1 "=" v; next } { print }' | paste -sd, -)
        same "$label seed $seed" --generate "$small" --seed $seed
    done <"$T/w"
done
echo "$runs runs, $diffs differ"
[ $diffs -eq 0 ]
