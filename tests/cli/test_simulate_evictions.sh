#!/bin/sh
# `moonsched simulate --evictions`: the NoExecute taint eviction timeline
# of examples/cluster-taints.yaml, as a table and as JSON. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

"$M" simulate --cluster examples/cluster-taints.yaml --evictions >"$T/t.out" 2>"$T/t.err"
rc=$?
check "exit 0, nothing on stderr" sh -c "test $rc -eq 0 && test ! -s '$T/t.err'"
check "untolerated: evicted at once, placed again on the untainted node" \
    sh -c "grep -Eq '^\\+0s +default/batch-1 +n1 +taint \\{node.kubernetes.io/unreachable: \\} not tolerated +n2\$' '$T/t.out'"
check "timeAdded long ago: overdue, at once; a new pod on the emptiest node gets its whole hour" \
    sh -c "grep -Eq '^\\+0s +default/db-0 +n3 +tolerationSeconds 3600 for taint \\{maintenance: true\\} +n3 \\(evicted again 3600s later\\)\$' '$T/t.out'"
check "tolerationSeconds 300: after 300 s; the scheduler may put it back where it is tolerated for a while" \
    sh -c "grep -Eq '^\\+300s +default/web-1 +n1 +tolerationSeconds 300 .* n1 \\(evicted again 300s later\\)\$' '$T/t.out'"
check "tolerated for ever: stays" \
    sh -c "grep -Eq '^never +kube-system/agent-n1 +n1 +tolerates the NoExecute taints for ever +-\$' '$T/t.out'"
check "the pending pod was placed first and is not evicted (it is on n2)" sh -c "! grep -q 'api-1' '$T/t.out'"
check "in time order, with the totals" \
    sh -c "awk 'NR > 1 && NF' '$T/t.out' | cut -c1-10 | tr -d ' ' | head -n 4 | tr '\\n' ' ' | grep -qx '+0s +0s +300s never ' && tail -n 1 '$T/t.out' | grep -qx '3 evicted, 1 staying'"

"$M" simulate --cluster examples/cluster-taints.yaml --evictions --output json >"$T/j.out"
check "JSON: the same timeline" \
    jq -e '[.evictions[] | "\(.name) \(.afterSeconds) \(.placedAgain // "-")"] == ["db-0 0 n3", "batch-1 0 n2", "web-1 300 n1", "agent-n1 null -"]' "$T/j.out"

# "Placed again" runs the scheduler's Filter phase, Lua policies
# included: a policy that keeps batch-1 off n2 (where it went above)
# leaves it nowhere.
cat >"$T/not-n2.lua" <<'EOF'
local p = { name = "not-n2" }
function p.filter(pod, node) return pod.name ~= "batch-1" or node.name ~= "n2", "policy keeps batch-1 off n2" end
return p
EOF
"$M" simulate --cluster examples/cluster-taints.yaml --evictions --policy "$T/not-n2.lua" >"$T/p.out" 2>&1
check "a Lua filter: the pod is never placed again on the node it rejects" \
    sh -c "test $? -eq 0 && grep -Eq '^\+0s +default/batch-1 +n1 +taint .* not tolerated +\(unschedulable: 0/3 nodes are available: .*1 policy keeps batch-1 off n2\. ' '$T/p.out'"
check "a Lua filter: the other pods' timeline is unchanged" \
    sh -c "grep -Eq '^\+300s +default/web-1 +n1 .* n1 \(evicted again 300s later\)\$' '$T/p.out' && tail -n 1 '$T/p.out' | grep -qx '3 evicted, 1 staying'"
tap_done
