#!/bin/sh
# `moonsched simulate --deschedule POLICY`: a descheduling pass on cluster
# files with placement-aware evictions: the moves LowNodeUtilization makes
# on examples/cluster-hot-node.yaml, and the three ways an eviction is
# refused (fits nowhere else, lands back, a new violation of the strategy:
# static and deviation LowNodeUtilization, RemoveDuplicates, topology
# spread); pods with claims, placed where their PVs allow. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

"$M" simulate --cluster examples/cluster-hot-node.yaml --deschedule examples/descheduler-policy.yaml \
    >"$T/t.out" 2>"$T/t.err"
rc=$?
check "exit 0, nothing on stderr" sh -c "test $rc -eq 0 && test ! -s '$T/t.err'"
check "before: node-1 at 80% cpu" sh -c "sed -n '/^BEFORE/,/^\$/p' '$T/t.out' | grep -Eq '^node-1 +80\\.0 +40\\.0 +8\$'"
check "three pods move off the hot node, each with its destination" \
    sh -c "grep -Ec '^default/web-[0-9] +node-1 +node-[23] +LowNodeUtilization +node is over its target utilization\$' '$T/t.out' | grep -qx 3"
check "the replacements land on the idle nodes, never back on node-1" \
    sh -c "! grep -Eq '^default/web-[0-9] +node-1 +node-1 ' '$T/t.out'"
check "after: node-1 down to its 50% target" sh -c "sed -n '/^AFTER/,/^\$/p' '$T/t.out' | grep -Eq '^node-1 +50\\.0 +25\\.0 +5\$'"
check "after: the idle nodes hold 4 pods (db-0 and the 3 moved)" \
    sh -c "sed -n '/^AFTER/,/^\$/p' '$T/t.out' | awk '/^node-[23] /{n+=\$4} END{exit !(n==4)}'"
check "totals" has_line "$T/t.out" "3 evicted, 0 skipped"

"$M" simulate --cluster examples/cluster-hot-node.yaml --deschedule examples/descheduler-policy.yaml \
    --output json >"$T/j.out"
check "JSON: the same moves" \
    jq -e '[.evictions[] | "\(.name) \(.node)->\(.to) \(.strategy)"] | length == 3 and all(test("^web-[0-9] node-1->node-[23] LowNodeUtilization$"))' "$T/j.out"

check "JSON: utilisation before and after, as the table's" \
    jq -e '(.before[] | select(.node == "node-1") | [.cpu, .memory, .pods]) == [80, 40, 8] and
           (.after[] | select(.node == "node-1") | [.cpu, .memory, .pods]) == [50, 25, 5] and
           ([.after[] | select(.node == "node-2" or .node == "node-3") | .pods] | add) == 4' "$T/j.out"

# node-b of the example cluster runs a Succeeded pod: it holds nothing,
# before as after (upstream's ListPodsOnANode leaves it out).
"$M" simulate --cluster examples/cluster.yaml --deschedule deploy/descheduler/base/policy.yaml >"$T/s.out"
check "a Succeeded pod is not counted before the pass" \
    sh -c "sed -n '/^BEFORE/,/^\$/p' '$T/s.out' | grep -Eq '^node-b +30\\.1 +12\\.3 +6\$' &&
           sed -n '/^AFTER/,/^\$/p' '$T/s.out' | grep -Eq '^node-b +30\\.1 +12\\.3 +6\$' && grep -q '^0 evicted,' '$T/s.out'"

for mode in "--deschedule examples/descheduler-policy.yaml" --evictions "--explain default/web-0"; do
    "$M" simulate --cluster examples/cluster-hot-node.yaml $mode --output html >"$T/h.out" 2>"$T/h.err"
    rc=$?
    check "--output html with ${mode%% *}: refused, exit 2, nothing on stdout" \
        sh -c "test $rc -eq 2 && test ! -s '$T/h.out' && grep -q -- '--output html shows placements: it does not go with ${mode%% *}' '$T/h.err'"
done

"$M" simulate --cluster $D/deschedule-nowhere.yaml --deschedule $D/deschedule-taints.yaml >"$T/n.out"
check "fits nowhere else: not evicted, with the scheduler's reason" \
    sh -c "grep -Eq '^default/batch-0 +big +RemovePodsViolatingNodeTaints +it fits nowhere else \\(unschedulable: 0/3 nodes are available: 1 node\\(s\\) had untolerated taint \\{dedicated: infra\\}, 2 Insufficient cpu' '$T/n.out' && grep -qx '0 evicted, 2 skipped' '$T/n.out'"
check "nothing moved: utilisation unchanged" \
    sh -c "sed -n '/^AFTER/,/^\$/p' '$T/n.out' | grep -Eq '^big +93\\.8 +0\\.0 +2\$'"

"$M" simulate --cluster $D/deschedule-back.yaml --deschedule $D/deschedule-taints.yaml >"$T/b.out"
check "would land back on the node it leaves: not evicted" \
    sh -c "grep -Eq '^default/web-0 +only +RemovePodsViolatingNodeTaints +it would land back on only\$' '$T/b.out' && grep -qx '0 evicted, 1 skipped' '$T/b.out'"

"$M" simulate --cluster $D/deschedule-violation.yaml --deschedule $D/deschedule-low.yaml >"$T/v.out"
check "would make the target overutilized: not evicted" \
    sh -c "grep -Eq '^default/a +node-1 +LowNodeUtilization +it would make the node it lands on overutilized \\(node-[23]\\)\$' '$T/v.out' && grep -qx '0 evicted, 2 skipped' '$T/v.out'"

"$M" simulate --cluster $D/deschedule-violation.yaml --deschedule $D/deschedule-low-deviation.yaml >"$T/vd.out"
check "deviation thresholds: would make the target over average + target: not evicted" \
    sh -c "grep -Ec '^default/[ab] +node-1 +LowNodeUtilization +it would make the node it lands on overutilized \\(node-[23]\\)\$' '$T/vd.out' | grep -qx 2 && grep -qx '0 evicted, 2 skipped' '$T/vd.out'"
"$M" simulate --cluster $D/deschedule-duplicates.yaml --deschedule $D/deschedule-dup-policy.yaml >"$T/vu.out"
check "RemoveDuplicates: would put more of the owner's pods on the target than an even spread: not evicted" \
    sh -c "grep -Ec '^default/p[34] +n1 +RemoveDuplicates +it would make the node it lands on run more duplicates than an even spread allows \\(n2\\)\$' '$T/vu.out' | grep -qx 2 && grep -qx '0 evicted, 3 skipped' '$T/vu.out'"
"$M" simulate --cluster $D/deschedule-spread.yaml --deschedule $D/deschedule-spread-policy.yaml >"$T/vs.out"
check "topology spread: would make the landing domain exceed maxSkew: not evicted" \
    sh -c "grep -Ec '^default/s-a[34] +a1 +RemovePodsViolatingTopologySpreadConstraint +it would make its topology domain exceed maxSkew where it lands \\(c1\\)\$' '$T/vs.out' | grep -qx 2 && grep -qx '0 evicted, 2 skipped' '$T/vs.out'"

"$M" simulate --cluster $D/deschedule-namespaces.yaml --deschedule $D/deschedule-ns-policy.yaml >"$T/ns.out"
check "namespaceLabelSelector: the matching namespace's pod goes, the others (one not listed) stay" \
    sh -c "grep -Eq '^dev/d-0 +tainted +free +RemovePodsViolatingNodeTaints ' '$T/ns.out' &&
           grep -Ec '^(prod/p-0|unlisted/u-0) +tainted +RemovePodsViolatingNodeTaints +pod namespace do not match the namespaceLabelSelector filter in the policy parameter\$' '$T/ns.out' | grep -qx 2"

# matchExpressions alone apply too (upstream v0.36.0)
sed 's/{matchLabels: {tier: dev}}/{matchExpressions: [{key: tier, operator: In, values: [dev]}]}/' \
    $D/deschedule-ns-policy.yaml >"$T/ns-expr.yaml"
"$M" simulate --cluster $D/deschedule-namespaces.yaml --deschedule "$T/ns-expr.yaml" >"$T/nse.out"
check "namespaceLabelSelector with matchExpressions only: applied as with matchLabels" \
    sh -c "grep -q matchExpressions '$T/ns-expr.yaml' && grep -Eq '^dev/d-0 +tainted +free +RemovePodsViolatingNodeTaints ' '$T/nse.out' &&
           grep -Ec '^(prod/p-0|unlisted/u-0) +tainted +RemovePodsViolatingNodeTaints +pod namespace do not match the namespaceLabelSelector filter in the policy parameter\$' '$T/nse.out' | grep -qx 2"

"$M" simulate --cluster $D/deschedule-back.yaml --deschedule $D/no-such-policy.yaml >"$T/e.out" 2>"$T/e.err"
rc=$?
check "a missing policy file: exit 2 with the file named" sh -c "test $rc -ne 0 && grep -q 'no-such-policy.yaml' '$T/e.err'"
printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - {name: Nope}\n' >"$T/bad.yaml"
"$M" simulate --cluster $D/deschedule-back.yaml --deschedule "$T/bad.yaml" >"$T/e.out" 2>"$T/e.err"
rc=$?
check "an invalid policy: upstream's message" sh -c "test $rc -ne 0 && grep -q 'in profile p: plugin Nope in pluginConfig not registered' '$T/e.err'"

"$M" simulate --cluster $D/deschedule-drain.yaml --deschedule $D/deschedule-lua.yaml >"$T/l.out" 2>"$T/l.err"
rc=$?
check "a Lua strategy: exit 0" sh -c "test $rc -eq 0 && test ! -s '$T/l.err'"
check "lua:drain evicts per_pass pods of the drained node, lowest priority first, with its reason" \
    sh -c "grep -E '^default/' '$T/l.out' | awk '{print \$1, \$2, \$3, \$4}' | tr '\n' ';' | grep -qx 'default/api-1 old new lua:drain;default/api-2 old new lua:drain;'"
check "... the policy's reason" has_text "$T/l.out" "node old is being drained"
check "... and never the pinned pod" sh -c "! grep -q pinned-0 '$T/l.out'"
printf 'local p = { name = "broken" }\nfunction p.deschedule(nodes) return 42 end\nfunction p.evictable() return true end\nreturn p\n' >"$T/broken.lua"
sed "s|policies/deschedule-drain.lua|$T/broken.lua|" $D/deschedule-lua.yaml >"$T/broken.yaml"
"$M" simulate --cluster $D/deschedule-drain.yaml --deschedule "$T/broken.yaml" >"$T/x.out" 2>"$T/x.err"
rc=$?
check "a failing deschedule hook: nothing evicted, the error on stderr" \
    sh -c "grep -qx '0 evicted, 0 skipped' '$T/x.out' && grep -q 'deschedule returned a number' '$T/x.err'"
check "... exit 3 and the policy's summary line, as for a scheduling policy" \
    sh -c "test $rc -eq 3 && grep -qx 'moonsched: policy lua:drain (profile drain): 1 of 1 calls failed; the last: .*deschedule returned a number.*' '$T/x.err'"
printf 'return { name = "x", deschedule = function( end }\n' >"$T/syntax.lua"
sed "s|policies/deschedule-drain.lua|$T/syntax.lua|" $D/deschedule-lua.yaml >"$T/syntax.yaml"
"$M" simulate --cluster $D/deschedule-drain.yaml --deschedule "$T/syntax.yaml" >"$T/y.out" 2>"$T/y.err"
rc=$?
check "a Lua file that does not load: exit 2, the profile, the plugin and the line" \
    sh -c "test $rc -eq 2 && grep -q 'profile \"drain\": lua:drain: .*syntax.lua:1:' '$T/y.err'"
sed 's|^      file: policies/deschedule-drain.lua$|&\n      mode: shadow|' $D/deschedule-lua.yaml >"$T/shadow.yaml"
"$M" simulate --cluster $D/deschedule-drain.yaml --deschedule "$T/shadow.yaml" >"$T/sh.out" 2>"$T/sh.err"
rc=$?
check "mode: shadow on a descheduler policy: refused with the field named, nothing evicted" \
    sh -c "test $rc -eq 2 && grep -q 'mode: shadow' '$T/shadow.yaml' && ! grep -q evicted '$T/sh.out' &&
           grep -qx 'moonsched: profiles\[0\]\.pluginConfig\[0\]\.args\.mode: Unsupported value: \"shadow\": a descheduler policy runs live; --dry-run shows what a pass would evict' '$T/sh.err'"

"$M" simulate --generate shape=deschedule,nodes=4,bound-pods=40,zones=2 --deschedule tests/bench/deschedule-policy.yaml \
    --stats >"$T/g.out" 2>"$T/g.err"
check "generated shape=deschedule: the bound pods fill half the nodes" \
    sh -c "sed -n '/^BEFORE/,/^\$/p' '$T/g.out' | awk '\$1 ~ /^node-/ {print \$1, \$4}' | tr '\n' ';' | grep -qx 'node-0 20;node-1 20;node-2 0;node-3 0;'"
check "... the ReplicaSet's pods move to the idle half, none skipped for want of a reason" \
    sh -c "grep -Eq '^default/bound-[0-9]+ +node-[01] +node-[23] +LowNodeUtilization ' '$T/g.out'"
check "--stats: the pass's time and evictions per second" \
    sh -c "grep -Eq '^descheduled: +[1-9][0-9]* evicted, [0-9]+ skipped' '$T/g.err' && grep -Eq '^deschedule time: +[0-9.]+ s' '$T/g.err' && grep -Eq '^evictions/s: +[0-9]+' '$T/g.err'"

"$M" simulate --cluster $D/deschedule-preempt.yaml --deschedule $D/deschedule-taints.yaml >"$T/p.out"
check "a replacement that would have to preempt: not evicted" \
    sh -c "grep -Eq '^default/vip +tainted +RemovePodsViolatingNodeTaints +it fits nowhere else \\(only by preempting default/filler\\)\$' '$T/p.out'"
check "... and nothing preempted: the filler keeps its node" \
    sh -c "sed -n '/^AFTER/,/^\$/p' '$T/p.out' | grep -Eq '^full +87\\.5 '"
"$M" simulate --cluster $D/deschedule-preempt.yaml --deschedule $D/deschedule-taints-pdb.yaml >"$T/q.out"
check "PodsWithoutPDB: a pod no budget selects is protected" \
    sh -c "grep -Eq '^default/other +tainted +RemovePodsViolatingNodeTaints +pod does not have a PodDisruptionBudget and is protected against eviction\$' '$T/q.out'"

# Pods with claims: the prediction's VolumeBinding decides from the PVs.
"$M" simulate --cluster $D/deschedule-volumes.yaml --deschedule $D/deschedule-lua.yaml >"$T/pv.out"
check "a pod on a network PV (no node affinity) moves" \
    sh -c "grep -Eq '^default/v-net +old +new +lua:drain +node old is being drained\$' '$T/pv.out'"
check "a pod on a local PV of its node: it would land back there" \
    sh -c "grep -Eq '^default/v-local +old +lua:drain +it would land back on old\$' '$T/pv.out' && grep -qx '1 evicted, 1 skipped' '$T/pv.out'"
# The same cluster without its PVs (claims only): nowhere to go for either.
awk 'BEGIN{RS="---\n"; ORS="---\n"} !/kind: PersistentVolume\n/' $D/deschedule-volumes.yaml >"$T/nopv.yaml"
"$M" simulate --cluster "$T/nopv.yaml" --deschedule $D/deschedule-lua.yaml >"$T/nopv.out"
check "... without the PVs, both fit nowhere (the bound PV is unknown)" \
    sh -c "grep -Ec '^default/v-(net|local) +old +lua:drain +it fits nowhere else \\(unschedulable: .*persistentvolume \"pv-(net|local)\" not found' '$T/nopv.out' | grep -qx 2"
# priorityThreshold.name: a PriorityClass of the cluster files. The web
# pods run at priority 100; a class of value 100 protects them all, one of
# value 101 none; a class that does not exist fails with upstream's message.
sed 's/^  nodeName: node-1$/  nodeName: node-1\n  priority: 100/' examples/cluster-hot-node.yaml >"$T/prio.yaml"
prio_class() {
    printf 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %s\n' "$1" "$2"
}
prio_class web-tier 100 >"$T/pc100.yaml"
prio_class web-tier 101 >"$T/pc101.yaml"
sed '0,/args: {}$/s//args: {priorityThreshold: {name: web-tier}}/' examples/descheduler-policy.yaml >"$T/pt.yaml"
check "the policy names the class" grep -q 'priorityThreshold: {name: web-tier}' "$T/pt.yaml"
"$M" simulate --cluster "$T/prio.yaml" "$T/pc100.yaml" --deschedule "$T/pt.yaml" >"$T/p100.out" 2>&1
check "priorityThreshold.name: pods at the class's value are protected" has_line "$T/p100.out" "0 evicted, 8 skipped"
check "... with upstream's reason" \
    sh -c "grep -Ec '^default/web-[0-9] +node-1 +LowNodeUtilization +pod has higher priority than specified priority class threshold\$' '$T/p100.out' | grep -qx 8"
"$M" simulate --cluster "$T/prio.yaml" "$T/pc101.yaml" --deschedule "$T/pt.yaml" >"$T/p101.out" 2>&1
check "... and pods under it move" has_line "$T/p101.out" "3 evicted, 0 skipped"
"$M" simulate --cluster "$T/prio.yaml" --deschedule "$T/pt.yaml" >"$T/p0.out" 2>&1
rc=$?
check "a class the cluster does not have: refused with upstream's message" \
    sh -c "test $rc -ne 0 && grep -qF 'profile \"default\": failed to get priority threshold: unable to get priority value from the priority class: priorityclasses.scheduling.k8s.io \"web-tier\" not found' '$T/p0.out'"

# The predictions run the scheduler's Filter phase, Lua policies
# included: with a policy that rejects "new", the drained pods have
# nowhere else to go (without it they go to new: see lua:drain above).
cat >"$T/not-new.lua" <<'EOF'
local p = { name = "not-new" }
function p.filter(_, node) return node.name ~= "new", "policy keeps off new" end
return p
EOF
"$M" simulate --cluster $D/deschedule-drain.yaml --deschedule $D/deschedule-lua.yaml --policy "$T/not-new.lua" \
    >"$T/nn.out" 2>&1
check "a Lua filter: no eviction is predicted onto the node it rejects" \
    sh -c "test $? -eq 0 && grep -qx '0 evicted, 2 skipped' '$T/nn.out' && ! grep -Eq '^default/[^ ]+ +old +new ' '$T/nn.out'"
check "a Lua filter: the drained pods are skipped, landing back on old" \
    sh -c "grep -Ec '^default/api-[12] +old +lua:drain +it would land back on old\$' '$T/nn.out' | grep -qx 2"
tap_done
