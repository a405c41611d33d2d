#!/bin/sh
# A native rule and its Lua twin schedule alike, preemption included:
# nodeSelector, required node affinity, NoSchedule/NoExecute taints, node
# unschedulable (unresolvable rejections), a resource headroom filter and
# pod anti-affinity across zones, counted in pre_filter and kept right by
# add_pod/remove_pod (resolvable), and preferred node affinity's Score,
# each on random
# preemption-heavy clusters (tests/cli/differential.py: low-priority pods
# filling the nodes, a PDB, high-priority pending pods, some with
# preemptionPolicy Never) with several seeds. Each run must give the same
# placements, the same preemptions (preemptor, node, victims) and the same
# pending pods, and the twin's policy must not fail. TAP output.
# B: the build directory (default: build). SEEDS: seeds per rule (default 4).
. tests/lib/cli.sh

tap_need "$M"
SEEDS=${SEEDS:-4}
for rule in selector affinity taints unschedulable headroom zones prefer; do
    seed=1
    while [ "$seed" -le "$SEEDS" ]; do
        d="$T/$rule-$seed"
        mkdir -p "$d"
        python3 tests/cli/differential.py gen "$rule" "$seed" "$d"
        "$M" simulate --cluster "$d/native.yaml" --config "$d/native-config.yaml" --output json \
            >"$d/native.json" 2>"$d/native.err"
        native_rc=$?
        "$M" simulate --cluster "$d/twin.yaml" --config "$d/twin-config.yaml" --output json \
            >"$d/twin.json" 2>"$d/twin.err"
        twin_rc=$?
        diff=$(python3 tests/cli/differential.py compare "$d/native.json" "$d/twin.json" 2>&1)
        pre=$(jq '.preemptions | length' "$d/native.json" 2>/dev/null)
        check_eval "$rule seed $seed: $diff (native: ${pre:-?} preemptions; exit $native_rc/$twin_rc)" \
            '[ "$native_rc" -eq 0 ] && [ "$twin_rc" -eq 0 ] &&
             [ "$diff" = "placements 0 preemptions 0 unschedulable 0" ]'
        seed=$((seed + 1))
    done
done
tap_done
