#!/bin/sh
# Lua policies end to end: `simulate --policy` and policies from a
# configuration, the shipped policies, containment (a policy that spins,
# allocates without end or fails) with scheduling going on, gang
# scheduling through Permit, `moonsched policy check`, and hot reload in
# the middle of long runs (a rewrite, a broken rewrite, a ConfigMap-style
# ..data swap). TAP output. B: the build directory (default: build).
. tests/lib/cli.sh
bg=""

tap_need "$M"

# ---- --policy and configured policies ----
cat >"$T/even.lua" <<'EOF'
-- Only nodes whose number is even; the higher the number, the better.
local p = { name = "even" }
function p.filter(_, node) return tonumber(node.name:match("%d+")) % 2 == 0, "odd node" end
function p.score(_, node) return tonumber(node.name:match("%d+")) end
return p
EOF
"$M" simulate --generate nodes=10,pods=20 --policy "$T/even.lua" --stats >"$T/even.out" 2>"$T/even.err"
check "--policy: exit 0" test $? -eq 0
check "--policy: every pod on an even node" \
    test "$(grep -c '^default/pod-[0-9]* -> node-[02468]  (' "$T/even.out")" -eq 20
check "--policy: the policy's weighted score is reported as lua:NAME" \
    sh -c "grep '^default/pod-0 -> ' '$T/even.out' | grep -q 'lua:even 100; feasible 5/10)'"
check "--policy: the best-scored even node" sh -c "grep -q '^default/pod-0 -> node-8  (' '$T/even.out'"
check "--stats: policy calls" has_line "$T/even.err" "policies:          1 (40 calls, 0 failed, disabled 0 times)"

"$M" simulate --cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml \
    >"$T/ex.out" 2>"$T/ex.err"
check "example policy configuration: exit 0, nothing on stderr" \
    sh -c "test $? -eq 0 && test ! -s '$T/ex.err'"
check "example policy configuration: web pods spread over the three zones" \
    sh -c "grep '^default/web-' '$T/ex.out' | sed 's/.* -> \\(node-.\\) .*/\\1/' | sort -u | wc -l | grep -qx 3"
check "example policy configuration: weights apply (gpu-binpack 2, spread-web 3)" \
    sh -c "grep '^default/web-1 -> ' '$T/ex.out' | grep -q 'lua:gpu-binpack 200, lua:spread-web 300;'"

sed 's/budgetMs: 20 /budgetMs: -1 /' examples/scheduler-config-policies.yaml >"$T/bad-config.yaml"
"$M" simulate --cluster examples/cluster.yaml --config "$T/bad-config.yaml" >/dev/null 2>"$T/bad-config.err"
check "bad policy args: exit 2" test $? -eq 2
check "bad policy args: the field named, upstream style" has_text "$T/bad-config.err" \
    "profiles[0].pluginConfig[0].args.budgetMs: Invalid value: -1: must be greater than 0 and at most 60000"
sed 's/budgetMs: 20 /initBudgetMs: 0 /' examples/scheduler-config-policies.yaml >"$T/bad-init.yaml"
"$M" simulate --cluster examples/cluster.yaml --config "$T/bad-init.yaml" >/dev/null 2>"$T/bad-init.err"
check "bad initBudgetMs: exit 2" test $? -eq 2
check "bad initBudgetMs: reported as budgetMs is" has_text "$T/bad-init.err" \
    "profiles[0].pluginConfig[0].args.initBudgetMs: Invalid value: 0: must be greater than 0 and at most 60000"
printf 'return {name = "broken",\n' >"$T/broken.lua"
"$M" simulate --generate nodes=2,pods=1 --policy "$T/broken.lua" >/dev/null 2>"$T/broken.err"
check "--policy with a syntax error: exit 2" test $? -eq 2
check "--policy with a syntax error: file and line" has_text "$T/broken.err" "--policy $T/broken.lua: "
check "--policy with a syntax error: the parser's message" has_text "$T/broken.err" "broken.lua:2:"
# onLoadError matters to `run` only: simulate answers for one cluster at
# once and has no later version to wait for, so a broken file stays an error.
"$M" simulate --generate nodes=2,pods=1 --policy "$T/broken.lua,onLoadError=skip" >/dev/null 2>"$T/broken.err"
check "simulate --policy FILE,onLoadError=skip with a syntax error: still exit 2" test $? -eq 2
"$M" simulate --generate nodes=10,pods=20 --policy "$T/even.lua,onLoadError=skip" >"$T/even2.out" 2>&1
check "--policy FILE,onLoadError=skip: the file is read as FILE" \
    test "$(grep -c '^default/pod-[0-9]* -> node-[02468]  (' "$T/even2.out")" -eq 20

cat >"$T/by-name.lua" <<'EOF'
return { name = "by-name", less = function(a, b) return a.name > b.name end }
EOF
sed 's/by-name/by-name-2/' "$T/by-name.lua" >"$T/by-name-2.lua"
"$M" simulate --generate nodes=2,pods=3 --policy "$T/by-name.lua" >"$T/sort.out" 2>&1
check "--policy with less: the queue follows it (pod-2 first)" \
    sh -c "head -n 1 '$T/sort.out' | grep -q '^default/pod-2 -> '"
"$M" simulate --generate nodes=2,pods=3 --policy "$T/by-name.lua" --policy "$T/by-name-2.lua" \
    >/dev/null 2>"$T/sort2.err"
check "two --policy files with less: exit 2, the queue has one order" \
    sh -c "test $? -eq 2 && grep -q 'defines less, as $T/by-name.lua does' '$T/sort2.err'"

"$M" config check examples/scheduler-config-policies.yaml >"$T/cc.out" 2>"$T/cc.err"
check "config check: a configuration with policies is valid (exit 0)" test $? -eq 0
check "config check: the policies at the points their hooks implement" \
    sh -c "sed -n '/^    filter:/,/disabled/p' '$T/cc.out' | grep -q 'name: lua:tenants'"
sed "s|file: policies/gpu-binpack.lua|file: $T/broken.lua|" examples/scheduler-config-policies.yaml >"$T/cc-bad.yaml"
"$M" config check "$T/cc-bad.yaml" >/dev/null 2>"$T/cc-bad.err"
check "config check: a policy that fails to load: exit 2, plugin and file named" \
    sh -c "test $? -eq 2 && grep -q 'plugin \"lua:gpu-binpack\": $T/broken.lua:2:' '$T/cc-bad.err'"

# ---- containment: the scheduler keeps scheduling ----
hostile_config() {   # onError maxConsecutiveFailures
    cat >"$T/hostile-$1-$2.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled: [{name: "lua:hostile"}]
  pluginConfig:
  - name: lua:hostile
    args: {file: $D/hostile.lua, budgetMs: 20, memoryLimitMiB: 16, onError: $1, maxConsecutiveFailures: $2}
EOF
    echo "$T/hostile-$1-$2.yaml"
}
"$M" simulate --cluster "$D/hostile.yaml" --config "$(hostile_config reject 0)" --stats \
    >"$T/h1.out" 2>"$T/h1.err"
check "containment (reject): exit 3, a policy failed" test $? -eq 3
check "containment (reject): a summary line says which policy and how often" \
    grep -Eq "^moonsched: policy lua:hostile \(profile default-scheduler\): [1-9][0-9]* of [1-9][0-9]* calls failed; the last: " "$T/h1.err"
check "containment: the spinning call is stopped at its CPU budget" has_line "$T/h1.out" \
    "default/spin-0 -> (unschedulable) 0/2 nodes are available: 2 policy hostile: stopped after its CPU budget (budgetMs) of 20 ms. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
# Which of its limits stops the bomb first depends on the machine's speed:
# either contains it.
check "containment: the allocation bomb is stopped at its memory cap or its CPU budget" \
    sh -c "grep '^default/bomb-0 -> (unschedulable) ' '$T/h1.out' |
        grep -Eq 'exceeded its memory cap of 16384 KiB|stopped after its CPU budget \\(budgetMs\\) of 20 ms'"
check "containment: an error is the pod's reason" \
    sh -c "grep '^default/error-0 -> (unschedulable) ' '$T/h1.out' | grep -q 'policy hostile: broken for error-0'"
check "containment: the other pods are scheduled" \
    test "$(grep -c '^default/ok-[0-9] -> n[12]  (' "$T/h1.out")" -eq 4
check "containment: unschedulable 3" has_line "$T/h1.err" "unschedulable:     3"

"$M" simulate --cluster "$D/hostile.yaml" --config "$(hostile_config skip 0)" --stats \
    >"$T/h2.out" 2>"$T/h2.err"
check "containment (onError: skip): every pod scheduled" has_line "$T/h2.err" "unschedulable:     0"
check "containment (onError: skip): three failed calls counted" \
    has_line "$T/h2.err" "policies:          1 (7 calls, 3 failed, disabled 0 times)"

"$M" simulate --cluster "$D/hostile.yaml" --config "$(hostile_config reject 2)" --stats \
    >"$T/h3.out" 2>"$T/h3.err"
check "containment: disabled after 2 consecutive failures, and reported" has_text "$T/h3.err" \
    "policy lua:hostile: error: disabled after 2 consecutive failures"
check "containment: once disabled the policy is left out and every pod placed" \
    sh -c "grep -q '^unschedulable:     0$' '$T/h3.err' && grep -q 'disabled 1 times' '$T/h3.err'"

# Without the spinning pod and with a budget of a minute, the bomb reaches
# its cap first whatever the machine's speed: the cap takes 16 allocations
# of 1 MB, a minute allows thousands of times that work.
grep -v 'name: spin-0' "$D/hostile.yaml" >"$T/no-spin.yaml"
sed 's/budgetMs: 20,/budgetMs: 60000,/' "$(hostile_config reject 0)" >"$T/bomb.yaml"
"$M" simulate --cluster "$T/no-spin.yaml" --config "$T/bomb.yaml" >"$T/h4.out" 2>"$T/h4.err"
check "containment: with a large budget, the allocation bomb is stopped at the memory cap" \
    sh -c "grep '^default/bomb-0 -> (unschedulable) ' '$T/h4.out' | grep -q 'exceeded its memory cap of 16384 KiB'"

# ---- gang scheduling through Permit ----
"$M" simulate --cluster "$D/gang.yaml" --policy policies/gang.lua --stats >"$T/gang.out" 2>"$T/gang.err"
check "gang: exit 0" test $? -eq 0
check "gang: the complete gang is placed, one pod per node" \
    test "$(grep '^ml/train-[0-2] -> n[1-4]  (' "$T/gang.out" | sed 's/.* -> \(n.\) .*/\1/' | sort -u | wc -l)" -eq 3
check "gang: released together when the last member arrived" has_text "$T/gang.err" \
    "policy gang: info: gang complete gang=ml/train size=3"
check "gang: the incomplete gang is not placed" \
    sh -c "grep '^ml/eval-[01] -> ' '$T/gang.out' | grep -c unschedulable | grep -qx 2"
check "gang: its waiting member was rejected when the wait timed out" \
    sh -c "grep -q '^ml/eval-[01] -> (unschedulable) rejected due to timeout after waiting at Permit' '$T/gang.out'"

# ---- preemption choices ----
"$M" simulate --cluster "$D/protected.yaml" >"$T/pre0.out" 2>&1
check "preemption without a policy: the youngest pod of all goes (kube-system/dns)" \
    has_text "$T/pre0.out" "preempted kube-system/dns on node-a by prod/critical"
"$M" simulate --cluster "$D/protected.yaml" --policy policies/protected-preemption.lua >"$T/pre1.out" 2>&1
check "protected-preemption: never kube-system; the youngest batch job goes" \
    has_text "$T/pre1.out" "preempted batch/job-b2 on node-b by prod/critical"
check "protected-preemption: the preemptor is placed there" \
    sh -c "grep -q '^prod/critical -> node-b  (' '$T/pre1.out'"
cat >"$T/protect-all.yaml" <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled: [{name: "lua:protect"}]
  pluginConfig:
  - name: lua:protect
    args: {file: policies/protected-preemption.lua, args: {protected: [kube-system, batch]}}
EOF
"$M" simulate --cluster "$D/protected.yaml" --config "$T/protect-all.yaml" >"$T/pre2.out" 2>&1
check "protected-preemption: with every namespace protected, nothing is evicted" \
    sh -c "! grep -q preempted '$T/pre2.out' && grep -q '^prod/critical -> (unschedulable) 0/2 nodes are available: 2 Insufficient cpu. preemption: ' '$T/pre2.out'"

# ---- several policies in preemption's message ----
# Upstream's FitError counts each node's status, and a node's status is
# the first Filter plugin that rejects it. In the dry runs of
# tests/cli/data/preemption.yaml (victims removed from node-a and node-b),
# "no-a" rejects node-a and "no-b" node-b: each policy's reason counted
# once. With "no-a" and "no-any", node-a is no-a's (it runs first) and
# node-b no-any's.
printf 'local p = { name = "no-a" }\nfunction p.filter(_, node) return node.name ~= "node-a", "not on a" end\nreturn p\n' >"$T/no-a.lua"
printf 'local p = { name = "no-b" }\nfunction p.filter(_, node) return node.name ~= "node-b", "not on b" end\nreturn p\n' >"$T/no-b.lua"
printf 'local p = { name = "no-any" }\nfunction p.filter() return false, "nowhere" end\nreturn p\n' >"$T/no-any.lua"
"$M" simulate --cluster "$D/preemption.yaml" --policy "$T/no-a.lua" --policy "$T/no-b.lua" >"$T/two.out" 2>&1
check "two policies rejecting a node each: preemption's message counts each one's reason, no victim" \
    sh -c "! grep -q preempted '$T/two.out' && grep -qx 'prod/critical -> (unschedulable) 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 not on a, 1 not on b.' '$T/two.out'"
"$M" simulate --cluster "$D/preemption.yaml" --policy "$T/no-a.lua" --policy "$T/no-any.lua" >"$T/two.out" 2>&1
check "... a node both reject: the first policy's reason, as upstream's first failing Filter plugin" \
    sh -c "! grep -q preempted '$T/two.out' && grep -qx 'prod/critical -> (unschedulable) 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 not on a, 1 nowhere.' '$T/two.out'"

# ---- moonsched policy check ----
printf '%s\n' 'local p = { name = "typo" }' 'function p.scroe(pod, node) return 1 end' \
    'function p.filtr(pod, node) return true end' 'function p.helper() end' 'return p' >"$T/typo.lua"
"$M" policy check "$T/typo.lua" >"$T/typo.out" 2>&1
check "policy check: a misspelt hook is a warning naming the nearest hook" \
    sh -c "grep -qx 'log warn: scroe is not a hook and is never called; did you mean score?' '$T/typo.out' &&
           grep -qx 'log warn: filtr is not a hook and is never called; did you mean filter?' '$T/typo.out' &&
           ! grep -q helper '$T/typo.out'"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/typo.lua" --quiet >"$T/typo-sim.out" 2>&1
check "simulate --policy: the same warning at load" \
    grep -q "warn: scroe is not a hook and is never called; did you mean score?" "$T/typo-sim.out"
check "simulate --policy: the file loads once, so the warning is printed once" \
    test "$(grep -c 'warn: scroe is not a hook' "$T/typo-sim.out")" -eq 1

# ---- simulate --policy-args ----
cat >"$T/only.lua" <<'EOF'
-- Only the node its args name; init refuses args without one.
local p = { name = "only" }
function p.init(args)
    if type(args) ~= "table" or type(args.node) ~= "string" then error("args.node is required") end
    p.node = args.node
end
function p.filter(_, node) return node.name == p.node, "not " .. p.node end
return p
EOF
"$M" simulate --cluster examples/cluster.yaml --policy "$T/only.lua" --policy-args '{"node": "node-b"}' \
    >"$T/pa.out" 2>&1
check "simulate --policy-args: init receives them (every placed pod on the node they name)" \
    sh -c "test $? -eq 0 && grep -q ' -> node-b  (' '$T/pa.out' && ! grep ' -> node-' '$T/pa.out' | grep -qv ' -> node-b  ('"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/only.lua" >"$T/pa-none.out" 2>&1
check "simulate --policy without --policy-args: init gets no args (and refuses here)" \
    sh -c "test $? -ne 0 && grep -q 'args.node is required' '$T/pa-none.out'"
sed 's/name = "only"/name = "only2"/' "$T/only.lua" >"$T/only2.lua"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/only.lua" --policy-args '{"node": "node-b"}' \
    --policy "$T/only2.lua" --policy-args '{"node": "node-c"}' >"$T/pa2.out" 2>&1
check "simulate --policy-args: each is the args of the --policy just before it (node-b and node-c: nowhere)" \
    sh -c "test $? -eq 0 && ! grep -q ' -> node-' '$T/pa2.out' && grep -q '1 not node-b' '$T/pa2.out' && grep -q '1 not node-c' '$T/pa2.out'"
"$M" simulate --cluster examples/cluster.yaml --policy-args '{}' --policy "$T/only.lua" >"$T/pa3.out" 2>&1
check "simulate --policy-args before any --policy: a usage error" \
    sh -c "test $? -eq 2 && grep -qx 'moonsched: --policy-args follows the --policy or --shadow it is for' '$T/pa3.out'"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/only.lua" --policy-args '{}' --policy-args '{}' \
    >"$T/pa4.out" 2>&1
check "simulate --policy-args twice for one --policy: a usage error" \
    sh -c "test $? -eq 2 && grep -qx 'moonsched: --policy-args: one per --policy or --shadow' '$T/pa4.out'"
"$M" simulate --cluster examples/cluster.yaml --policy "$T/only.lua" --policy-args '["node-b"]' >"$T/pa5.out" 2>&1
check "simulate --policy-args: not an object" \
    has_line "$T/pa5.out" "moonsched: --policy $T/only.lua: --policy-args: the policy's args are a JSON object"
for p in policies/*.lua; do
    case $p in *_spec.lua) continue ;; esac
    args='{}'
    case $p in *spread-by-label*) args='{"key": "topology.kubernetes.io/zone"}' ;; esac
    "$M" policy check "$p" --cluster examples/cluster.yaml --args "$args" >"$T/check-p.out" 2>&1
    check "policy check $p: exit 0" sh -c "test $? -eq 0 && grep -qx 'result: ok' '$T/check-p.out'"
done
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml >"$T/pc.out" 2>&1
check "policy check: names the policy and its hooks" sh -c \
    "grep -q '^policy gpu-binpack (policies/gpu-binpack.lua): loaded and initialised in ' '$T/pc.out' && grep -qx 'hooks: pre_filter, filter, score, normalize' '$T/pc.out'"
check "policy check: one call per pending pod and hook, with times" \
    sh -c "grep -qx 'dry run: 12 pending pods, 5 nodes' '$T/pc.out' && grep -Eq '^filter +12 +0 ' '$T/pc.out'"
cat >"$T/fails.lua" <<'EOF'
return { name = "fails", score = function(pod, node)
    if pod.namespace == "ml" then return node.missing.field end
    return 1
end }
EOF
"$M" policy check "$T/fails.lua" --cluster examples/cluster.yaml >"$T/pf.out" 2>"$T/pf.err"
check "policy check: a failing hook gives exit 2" test $? -eq 2
check "policy check: the failing call, the pod and the error" has_text "$T/pf.out" \
    "FAIL score ml/train-1: policy fails: $T/fails.lua:2: node has no field 'missing'"
check "policy check: the count of failures" has_text "$T/pf.err" "calls failed"
"$M" policy check "$T/broken.lua" >"$T/pb.out" 2>&1
check "policy check: a syntax error gives exit 2" test $? -eq 2
check "policy check: a syntax error: the file once, with the parser's line" \
    sh -c "grep -c '^FAIL load ' '$T/pb.out' | grep -qx 1 && grep -q '^FAIL load $T/broken.lua:2: ' '$T/pb.out' &&
           test \$(grep '^FAIL load ' '$T/pb.out' | grep -o 'broken.lua' | wc -l) -eq 1"
printf 'error({})\n' >"$T/load-obj.lua"
"$M" policy check "$T/load-obj.lua" >"$T/pbo.out" 2>&1
check "policy check: a load error that is no string: the file once" has_line "$T/pbo.out" \
    "FAIL load $T/load-obj.lua: (error object is a table value)"
# A path of 150+ characters: past Lua's own shortened name (60) and the
# 128 bytes a policy's name holds, the file is still named once, in full.
deep="$T/$(printf '%050d' 1)/$(printf '%050d' 2)/$(printf '%050d' 3)"
mkdir -p "$deep"
cp "$T/broken.lua" "$T/load-obj.lua" "$deep/"
"$M" policy check "$deep/broken.lua" >"$T/pdeep.out" 2>&1
check "policy check: a long path's syntax error: the file once, in full, with the parser's line" \
    sh -c "test $? -eq 2 && test ${#deep} -ge 150 && grep -c '^FAIL load ' '$T/pdeep.out' | grep -qx 1 &&
           grep -q '^FAIL load $deep/broken.lua:2: ' '$T/pdeep.out' &&
           test \$(grep '^FAIL load ' '$T/pdeep.out' | grep -o 'broken.lua' | wc -l) -eq 1"
"$M" policy check "$deep/load-obj.lua" >"$T/pdeep2.out" 2>&1
check "policy check: a long path's load error that is no string: the file once, in full" has_line "$T/pdeep2.out" \
    "FAIL load $deep/load-obj.lua: (error object is a table value)"
"$M" policy check policies/spread-by-label.lua >"$T/pa.out" 2>&1
check "policy check: init's error without the args it needs" \
    sh -c "test $? -eq 2 && grep -qx 'FAIL load policies/spread-by-label.lua: spread-by-label: args.key (a node label key) is required' '$T/pa.out'"
"$M" policy check policies/spread-by-label.lua --args '{"key": "zone"}' >"$T/pa2.out" 2>&1
check "policy check: --args reach init; without a cluster nothing runs" \
    sh -c "test $? -eq 0 && grep -qx 'no --cluster: the hooks were not run' '$T/pa2.out'"
"$M" policy check policies/gpu-binpack.lua --args '[1]' >/dev/null 2>&1
check "policy check: --args must be an object" test $? -eq 2
# A top level that spins until the process has used 0.2 s of CPU: past
# 50 ms of its thread's CPU on any machine, and under 5 s.
cat >"$T/slow-load.lua" <<'EOF'
local t0 = os.clock()
while os.clock() - t0 < 0.2 do end
return { name = "slow-load", filter = function() return true end }
EOF
"$M" policy check "$T/slow-load.lua" --init-budget 50 >"$T/pib.out" 2>&1
check "policy check --init-budget 50: a 0.2 s top level is refused (exit 2)" test $? -eq 2
check "policy check --init-budget 50: stopped at the load budget, named" has_text "$T/pib.out" \
    "FAIL load $T/slow-load.lua: stopped after its load budget (initBudgetMs) of 50 ms"
"$M" policy check "$T/slow-load.lua" --init-budget=5000 >"$T/pib2.out" 2>&1
check "policy check --init-budget=5000: the same top level loads (exit 0)" \
    sh -c "test $? -eq 0 && grep -q '^policy slow-load ' '$T/pib2.out'"
for v in 0 60001 -5 x; do
    "$M" policy check "$T/slow-load.lua" --init-budget "$v" >/dev/null 2>"$T/pib3.err"
    check "policy check --init-budget $v: exit 2, initBudgetMs's range" sh -c "test $? -eq 2 && grep -qF \
        'moonsched: --init-budget: expected milliseconds greater than 0 and at most 60000, got \"$v\"' '$T/pib3.err'"
done
# A score call of 3e7 steps: far more than 1 ms of CPU on any machine, far
# less than a minute. One pod on one node: one call per run.
cat >"$T/one-pod.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
YAML
cat >"$T/slow-score.lua" <<'EOF'
return { name = "slow-score", score = function()
    local x = 0
    for i = 1, 3e7 do x = (x + i) % 7 end
    return x
end }
EOF
"$M" policy check "$T/slow-score.lua" --cluster "$T/one-pod.yaml" --budget 1 >"$T/pcb.out" 2>&1
check "policy check --budget 1: a score call of 3e7 steps fails the check (exit 2)" test $? -eq 2
check "policy check --budget 1: stopped at the call budget, named" has_line "$T/pcb.out" \
    "FAIL score default/p1: policy slow-score: stopped after its CPU budget (budgetMs) of 1 ms"
"$M" policy check "$T/slow-score.lua" --cluster "$T/one-pod.yaml" --budget=60000 >"$T/pcb2.out" 2>&1
check "policy check --budget=60000: the same call passes (exit 0)" \
    sh -c "test $? -eq 0 && grep -qx 'result: ok' '$T/pcb2.out' && grep -Eq '^score +1 +0 ' '$T/pcb2.out'"
for v in 0 60001 -5 x; do
    "$M" policy check "$T/slow-score.lua" --budget "$v" >/dev/null 2>"$T/pcb3.err"
    check "policy check --budget $v: exit 2, budgetMs's range" sh -c "test $? -eq 2 && grep -qF \
        'moonsched: --budget: expected milliseconds greater than 0 and at most 60000, got \"$v\"' '$T/pcb3.err'"
done
"$M" policy >/dev/null 2>&1
check "policy without check: exit 2" test $? -eq 2

# ---- hot reload in the middle of long runs ----
# v1 accepts even nodes, v2 odd ones; each logs its first call. The loop
# makes every filter call do some work, so that the run lasts seconds.
flip() {   # version parity
    cat <<EOF
local p = { name = "flip" }
local first = true
function p.filter(_, node)
    if first then sched.log.info("$1 running") first = false end
    local x = 0
    for i = 1, 3000 do x = x + i end
    return tonumber(node.name:match("%d+")) % 2 == $2 and x > 0, "wrong parity"
end
return p
EOF
}
GEN=nodes=20,pods=60000,node-pods=10000,node-cpu=1000,pod-cpu=1m,pod-memory=1Mi

wait_text() {   # file text seconds
    i=0
    while [ $i -lt $(($3 * 20)) ]; do
        grep -Fq -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# The parities of the nodes in placement order: one run of 0s, then 1s.
parities() {
    grep '^default/pod-[0-9]* -> node-' "$1" | sed 's/.* -> node-\([0-9]*\) .*/\1/' |
        awk '{ p = $1 % 2; if (p != last) { runs++; last = p; seq = seq p } ; n[p]++ }
             END { printf "%s %d %d\n", seq, n[0], n[1] }' last=x
}

reload_run() {   # name policy-path: starts a run in the background
    "$M" simulate --generate "$GEN" --policy "$2" --stats >"$T/$1.out" 2>"$T/$1.err" &
    bg=$!
    stop_at_exit "$bg"
    wait_text "$T/$1.err" "v1 running" 60
}

finish_run() {
    wait "$bg"
    rc=$?
    bg=""
    return $rc
}

latency_ok() {   # err file: every reload in effect within 1 s of the write
    grep -o 'in effect [0-9.]* s after' "$1" | awk '{ if ($3 + 0 >= 1.0) bad = 1; n++ } END { exit !(n > 0 && !bad) }'
}

mkdir -p "$T/r1"
flip v1 0 >"$T/r1/flip.lua"
if reload_run r1 "$T/r1/flip.lua"; then
    sleep 0.3
    flip v2 1 >"$T/r1/flip.lua.new" && mv "$T/r1/flip.lua.new" "$T/r1/flip.lua"
    finish_run
    check "reload: the run completes (exit 0)" test $? -eq 0
    check "reload: reported with its latency" has_text "$T/r1.err" \
        "policy lua:flip: info: reloaded from $T/r1/flip.lua (in effect "
    check "reload: in effect within 1 s of the write" latency_ok "$T/r1.err"
    check "reload: the new version ran" has_text "$T/r1.err" "v2 running"
    p=$(parities "$T/r1.out")
    check "reload: placements by v1, then only by v2 ($p)" sh -c "echo '$p' | grep -Eq '^01 [1-9][0-9]* [1-9][0-9]*$'"
    check "reload: no cycle failed" sh -c "grep -qx 'unschedulable:     0' '$T/r1.err' && grep -q '^policies: .* 0 failed' '$T/r1.err'"
    check "reload: counted in --stats" has_text "$T/r1.err" "policy reloads:    1 ok, 0 failed"
else
    not_ok "reload: the run started" "$(cat "$T/r1.err")"
    finish_run
fi

# A broken rewrite keeps v1 running; a good one after it is taken.
mkdir -p "$T/r2"
flip v1 0 >"$T/r2/flip.lua"
if reload_run r2 "$T/r2/flip.lua"; then
    sleep 0.2
    printf 'local p = { name = "flip"\nreturn p\n' >"$T/r2/flip.lua"
    wait_text "$T/r2.err" "failed, the running version stays" 10
    check "broken reload: reported, the running version stays" has_text "$T/r2.err" \
        "policy lua:flip: error: reload of $T/r2/flip.lua failed, the running version stays: $T/r2/flip.lua:2:"
    sleep 0.3
    flip v2 1 >"$T/r2/flip.lua"
    finish_run
    p=$(parities "$T/r2.out")
    check "broken reload: v1 went on until the good rewrite ($p)" sh -c "echo '$p' | grep -Eq '^01 [1-9][0-9]* [1-9][0-9]*$'"
    check "broken reload: counted (1 ok, 1 failed)" has_text "$T/r2.err" "policy reloads:    1 ok, 1 failed"
    check "broken reload: no cycle failed" has_text "$T/r2.err" "unschedulable:     0"
else
    not_ok "broken reload: the run started" "$(cat "$T/r2.err")"
    finish_run
fi

# A ConfigMap volume: DIR/flip.lua -> ..data/flip.lua, ..data -> a
# timestamped directory, updated by renaming a new ..data over it.
mkdir -p "$T/r3/..2024_01_01_00_00_00.1"
flip v1 0 >"$T/r3/..2024_01_01_00_00_00.1/flip.lua"
ln -s ..2024_01_01_00_00_00.1 "$T/r3/..data"
ln -s ..data/flip.lua "$T/r3/flip.lua"
if reload_run r3 "$T/r3/flip.lua"; then
    sleep 0.3
    mkdir "$T/r3/..2024_01_01_00_05_00.2"
    flip v2 1 >"$T/r3/..2024_01_01_00_05_00.2/flip.lua"
    ln -s ..2024_01_01_00_05_00.2 "$T/r3/..data_tmp"
    mv -T "$T/r3/..data_tmp" "$T/r3/..data"
    rm -rf "$T/r3/..2024_01_01_00_00_00.1"
    finish_run
    check "ConfigMap swap: picked up" has_text "$T/r3.err" "reloaded from $T/r3/flip.lua"
    check "ConfigMap swap: in effect within 1 s" latency_ok "$T/r3.err"
    p=$(parities "$T/r3.out")
    check "ConfigMap swap: v1 then v2 ($p)" sh -c "echo '$p' | grep -Eq '^01 [1-9][0-9]* [1-9][0-9]*$'"
else
    not_ok "ConfigMap swap: the run started" "$(cat "$T/r3.err")"
    finish_run
fi

tap_done
