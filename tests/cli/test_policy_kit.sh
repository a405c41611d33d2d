#!/bin/sh
# The policy kit as a user outside the repository meets it: `make install
# DESTDIR=...`, then, from a directory of one's own, `moonsched policy
# init` (skeleton policy and spec, .luacheckrc, .luarc.json) and `moonsched
# policy test` running busted specs against the installed library: the
# kit's helpers (pods, nodes, clusters, a cluster file, hooks, a whole
# simulate), a failing spec failing, the shipped luacheck standard refusing
# what the sandbox refuses; and `policy check --cluster` printing each
# node's verdict and score per pod. TAP output. B: the build directory.
. tests/lib/cli.sh

tap_need "$M"
tap_need "$B/libmoonsched.so"
REPO=$(pwd)

# ---- policy check --cluster: verdicts and scores ----
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml >"$T/pc.out" 2>&1
check "policy check: a GPU pod's rejected node with the policy's reason" \
    grep -Eq '^  node-a +reject +not enough free nvidia.com/gpu$' "$T/pc.out"
check "policy check: a GPU pod's feasible node with its score" \
    sh -c "sed -n '/^pod ml\/train-1:/,/^pod /p' '$T/pc.out' | grep -Eq '^  gpu-1 +pass +score 25$'"
check "policy check: every pod lists every node" \
    sh -c "test \$(grep -c '^  ' '$T/pc.out') -eq 60"
# narrowing the listing, not the run
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml --pods 'ml/*' >"$T/pc-pods.out" 2>&1
check "policy check --pods: only the matching pods are listed, the count said" \
    sh -c "[ \"\$(grep '^pod ' '$T/pc-pods.out' | tr '\\n' ' ')\" = 'pod ml/train-1: pod ml/gpu-no-toleration: ' ] && grep -qx 'pods listed: 2 of 12 (--pods ml/\\*)' '$T/pc-pods.out'"
check "policy check --pods: every hook still ran over every pending pod" \
    sh -c "grep -Eq '^filter +12 +0 ' '$T/pc-pods.out' && grep -qx 'result: ok' '$T/pc-pods.out'"
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml --nodes 'gpu-*' >"$T/pc-nodes.out" 2>&1
check "policy check --nodes: one row per pod, the matching node's" \
    sh -c "test \$(grep -c '^  ' '$T/pc-nodes.out') -eq 12 && test \$(grep -c '^  gpu-1 ' '$T/pc-nodes.out') -eq 12"
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml --pods ml/train-1 --max-nodes 2 \
    >"$T/pc-max.out" 2>&1
check "policy check --max-nodes: the first rows, the rest counted by verdict" \
    sh -c "sed -n '/^pod ml\\/train-1:/,/^pods listed/p' '$T/pc-max.out' | grep -c '^  ' | grep -qx 3 && grep -qx '  (3 more nodes: 1 pass, 2 reject or error)' '$T/pc-max.out'"
"$M" policy check policies/gpu-binpack.lua --cluster examples/cluster.yaml --max-nodes 0 >/dev/null 2>"$T/pc-bad.err"
check "policy check --max-nodes 0: a usage error (exit $?)" \
    sh -c "test $? -eq 2 && grep -q 'max-nodes: expected a positive integer' '$T/pc-bad.err'"

# ---- make install into a staging root ----
if ! make --no-print-directory -s install B="$B" PREFIX=/usr DESTDIR="$T/root" >"$T/install.out" 2>&1; then
    not_ok "make install DESTDIR" "$(tail -n 20 "$T/install.out")"
    tap_done
    exit 1
fi
I="$T/root/usr/bin/moonsched"
check "make install puts the library and the kit beside the binary" \
    test -f "$T/root/usr/lib/moonsched/libmoonsched.so" -a -f "$T/root/usr/share/moonsched/kit/moonsched/kit.lua" \
    -a -f "$T/root/usr/share/moonsched/types/policy.lua"

if ! command -v busted >/dev/null 2>&1 || ! command -v luajit >/dev/null 2>&1; then
    skip "policy init and test" "busted or luajit missing"
    tap_done
    exit
fi

# ---- policy init, from a directory outside the repository ----
mkdir "$T/mine"
cd "$T/mine" || exit 1
env -u MOONSCHED_LIB -u MOONSCHED_BIN -u LUA_PATH "$I" policy init >"$T/init.out" 2>&1
check "policy init writes the skeleton, its spec and the linters' settings" \
    test -f policy.lua -a -f policy_spec.lua -a -f .luacheckrc -a -f .luarc.json
check ".luarc.json points LuaLS at the installed annotations" \
    sh -c "jq -e --arg t '$T/root/usr/share/moonsched/types' '.\"workspace.library\" | index(\$t) != null' .luarc.json"
echo '-- mine' >policy.lua
"$I" policy init >"$T/init2.out" 2>&1
check "policy init keeps a file that exists" \
    sh -c "grep -q 'kept .*policy.lua' '$T/init2.out' && test \"\$(cat policy.lua)\" = '-- mine'"
cp "$REPO/lua/kit/init/policy.lua" policy.lua

# ---- policy test ----
env -u MOONSCHED_LIB -u MOONSCHED_BIN -u LUA_PATH "$I" policy test >"$T/test.out" 2>&1
rc=$?
check "policy test runs the skeleton's spec against the installed core" \
    sh -c "test $rc -eq 0 && grep -q '^2 successes / 0 failures / 0 errors' '$T/test.out'"

cat >cluster.yaml <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: big, labels: {example.com/maintenance: "true"}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: small}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: old, namespace: default}
spec: {nodeName: small, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: default}
spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
YAML
mkdir spec
cat >spec/file_spec.lua <<'LUA'
local kit = require("moonsched.kit")
describe("a cluster file", function()
    it("loads nodes, bound pods and pending pods", function()
        local w = kit.world()
        local p = assert(w:policy_file("policy.lua"))
        local nodes, pending = w:cluster_file("cluster.yaml")
        assert.are.equal(2, #nodes)
        assert.are.equal(1, nodes[2].npods)
        assert.are.equal("default/new", w:name(pending[1]))
        local r = w:schedule(p, pending[1], nodes)
        assert.are.equal("node under maintenance", r.filter[1].reason)
        assert.are.equal(kit.SUCCESS, r.filter[2].code)
        w:close()
    end)
    it("is placed by a whole simulate", function()
        local out = assert(kit.simulate({ cluster = "cluster.yaml", policies = { "policy.lua" } }))
        assert.are.equal("small", kit.placement(out, "default/new"))
    end)
end)
LUA
env -u MOONSCHED_LIB -u MOONSCHED_BIN -u LUA_PATH "$I" policy test spec >"$T/file.out" 2>&1
rc=$?
check "policy test SPEC: a cluster file through the hooks and through simulate" \
    sh -c "test $rc -eq 0 && grep -q '^2 successes / 0 failures / 0 errors' '$T/file.out'"

sed 's/node under maintenance/node is down/' "$REPO/lua/kit/init/policy.lua" >policy.lua
env -u MOONSCHED_LIB -u MOONSCHED_BIN -u LUA_PATH "$I" policy test -- -o TAP >"$T/fail.out" 2>&1
rc=$?
check "policy test: a spec that fails fails the command (busted's options after --)" \
    sh -c "test $rc -ne 0 && grep -q '^not ok' '$T/fail.out'"
cp "$REPO/lua/kit/init/policy.lua" policy.lua

# ---- luacheck with the shipped standard ----
if command -v luacheck >/dev/null 2>&1; then
    check "luacheck: the skeleton and its specs are clean" luacheck -q --no-color .
    printf 'local p = { name = "x" }\nfunction p.filter() assert(true) print("x") return true end\nreturn p\n' >bad.lua
    luacheck --no-color bad.lua >"$T/lc.out" 2>&1
    check "luacheck: assert and print, which fail in the sandbox, are flagged" \
        sh -c "grep -q \"undefined variable.*assert\" '$T/lc.out' && grep -q \"undefined variable.*print\" '$T/lc.out'"
    rm bad.lua
else
    skip "luacheck with the shipped standard" "luacheck missing"
fi

# ---- no kit beside the binary ----
mkdir -p "$T/bare/bin"
cp "$I" "$T/bare/bin/moonsched"
"$T/bare/bin/moonsched" policy test >"$T/bare.out" 2>&1
rc=$?
check "policy test without a kit says where it looked" \
    sh -c "test $rc -eq 2 && grep -q 'share/moonsched/kit' '$T/bare.out'"

tap_done
