#!/bin/sh
# `moonsched simulate --explain NS/NAME`: the pod's last cycle and, for a
# pod left pending, every node's Filter status computed again; text and
# JSON; the policies in effect; usage errors. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

"$M" simulate --cluster examples/cluster.yaml >"$T/placements.out"
fit_error=$(sed -n 's/^default\/huge -> (unschedulable) //p' "$T/placements.out")

"$M" simulate --cluster examples/cluster.yaml --explain default/huge >"$T/huge.out" 2>"$T/huge.err"
check "pending pod: exit 0, nothing on stderr" test $? -eq 0 -a ! -s "$T/huge.err"
check "pending pod: its state" has_line "$T/huge.out" "Pod default/huge: pending (unschedulable)"
check "pending pod: its last cycle was unschedulable" has_line "$T/huge.out" "  result: Unschedulable"
check "pending pod: with the FitError the placements print" has_line "$T/huge.out" "  message: $fit_error"
check "pending pod: every node recomputed (5 nodes, 0 feasible)" \
    has_line "$T/huge.out" "Recomputed now, over the current snapshot (5 nodes, 0 feasible):"
check "pending pod: the cordoned node's reason" has_line "$T/huge.out" \
    "  node-d                   NodeUnschedulable: UnschedulableAndUnresolvable: node(s) were unschedulable"
check "pending pod: the tainted node's reason" has_line "$T/huge.out" \
    "  gpu-1                    TaintToleration: UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: gpu}"
check "pending pod: no placements printed" sh -c "! grep -q ' -> ' '$T/huge.out'"

"$M" simulate --cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml \
    --explain default/web-1 >"$T/web.out" 2>&1
node=$(sed -n 's/^Pod default\/web-1: bound on //p' "$T/web.out")
check "bound pod: bound where the placements put it ($node)" \
    sh -c "'$M' simulate --cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml |
           grep -q '^default/web-1 -> $node '"
check "bound pod: selected in its last cycle, scored" \
    sh -c "grep -q '^  selected node: $node (3 feasible of 5 evaluated, 5 nodes), total score [0-9]*$' '$T/web.out'"
check "bound pod: the weighted scores, policies included" \
    sh -c "grep '^  scores: ' '$T/web.out' | grep -q 'TaintToleration 300, .*lua:gpu-binpack [0-9]*, lua:spread-web [0-9]*'"
check "bound pod: nothing recomputed" sh -c "! grep -q '^Recomputed now' '$T/web.out'"
check "the policies in effect, with their versions" has_line "$T/web.out" \
    "  lua:tenants (profile default-scheduler, policies/tenant-isolation.lua): version 1"

"$M" simulate --cluster examples/cluster.yaml --explain ml/train-1 --output json >"$T/train.json"
check "JSON: a pod placed without scoring" \
    sh -c "jq -e '.state == \"bound\" and .node == \"gpu-1\" and .lastCycle.scored == false and
                  .lastCycle.feasibleNodes == 1 and .lastCycle.virtualTime == 0' '$T/train.json' >/dev/null"
"$M" simulate --cluster examples/cluster.yaml --explain default/huge --output json >"$T/huge.json"
check "JSON: 5 node results, one per node, each with a Filter status" \
    sh -c "jq -e '[.recomputedNow.nodeResults[] | select(.filter.code != null)] | length == 5' '$T/huge.json' >/dev/null"

"$M" simulate --cluster examples/cluster.yaml --explain default/nope >"$T/nope.out" 2>"$T/nope.err"
check "an unknown pod: exit 2" test $? -eq 2
check "an unknown pod: said so" has_line "$T/nope.err" "moonsched: pod default/nope: not known to the scheduler"
"$M" simulate --cluster examples/cluster.yaml --explain huge >/dev/null 2>"$T/usage.err"
check "--explain without a namespace: usage error" \
    sh -c "[ $? -eq 2 ] && grep -q 'expected NAMESPACE/NAME, got \"huge\"' '$T/usage.err'"

# A Lua filter that turns web-3 away from every node: without it web-3
# is bound on a node feasible by the native plugins alone.
cat >"$T/no-web-3.lua" <<'EOF'
local p = { name = "no-web-3" }
function p.filter(pod) return pod.name ~= "web-3", "policy says no" end
return p
EOF
"$M" simulate --cluster examples/cluster.yaml --explain default/web-3 >"$T/w3-native.out" 2>&1
check "without the policy web-3 is bound" grep -q '^Pod default/web-3: bound on ' "$T/w3-native.out"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/no-web-3.lua" --explain default/web-3 >"$T/w3.out" 2>&1
check "a Lua filter: the pod stays pending" has_line "$T/w3.out" "Pod default/web-3: pending (unschedulable)"
check "a Lua filter: the recomputed verdicts have no feasible node" \
    has_line "$T/w3.out" "Recomputed now, over the current snapshot (5 nodes, 0 feasible):"
check "a Lua filter: the nodes native plugins accept are the policy's rejections, with its reason" \
    sh -c "test \$(grep -Ec '^  node-[abc] +lua:no-web-3: Unschedulable: policy says no\$' '$T/w3.out') -ge 2"

tap_done
