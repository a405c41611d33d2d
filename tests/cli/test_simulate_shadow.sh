#!/bin/sh
# Shadow policies in `simulate`: --shadow FILE and "mode: shadow" in the
# configuration; the live placements byte-identical with and without a
# shadow policy; the counts and the disagreements with their scores; a
# failing or slow shadow policy held by its budget. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"
GEN=nodes=50,pods=200,zones=3

# --- live decisions unchanged ----------------------------------------------------------
for args in "--generate $GEN" "--cluster examples/cluster.yaml --config examples/scheduler-config-policies.yaml" \
    "--generate shape=preemption,nodes=20,bound-pods=80,pods=20"; do
    # shellcheck disable=SC2086
    "$M" simulate $args --output json >"$T/live.json"
    # shellcheck disable=SC2086
    "$M" simulate $args --shadow "$D/shadow-last-node.lua" --shadow "$D/shadow-odd-nodes.lua" \
        --output json >"$T/shadow.json"
    check "simulate $args --output json: the same document with two shadow policies, but for the key shadow" \
        sh -c "jq -c 'del(.shadow)' '$T/shadow.json' >'$T/a' && jq -c . '$T/live.json' >'$T/b' && cmp '$T/a' '$T/b'"
    # shellcheck disable=SC2086
    "$M" simulate $args >"$T/live.txt"
    # shellcheck disable=SC2086
    "$M" simulate $args --shadow "$D/shadow-last-node.lua" >"$T/shadow.txt"
    check "simulate $args: the table byte-identical, the shadow section after it" \
        sh -c "head -n $(wc -l <"$T/live.txt") '$T/shadow.txt' | cmp - '$T/live.txt' &&
               sed -n '$(($(wc -l <"$T/live.txt") + 2))p' '$T/shadow.txt' | grep -qx 'shadow policies:'"
done
"$M" simulate --generate "$GEN" --output json >"$T/live.json"
"$M" simulate --generate "$GEN" --config "$D/shadow-config.yaml" --output json >"$T/conf.json"
check "mode: shadow in the configuration: the live document unchanged" \
    sh -c "jq -c 'del(.shadow)' '$T/conf.json' >'$T/a' && jq -c . '$T/live.json' >'$T/b' && cmp '$T/a' '$T/b'"

# --- counts and disagreements --------------------------------------------------------------
"$M" simulate --generate "$GEN" --shadow "$D/shadow-last-node.lua" --output json >"$T/last.json"
scheduled=$(jq '[.placements[] | select(.node != null)] | length' "$T/last.json")
check_eval "one decision per placed pod ($scheduled), agreeing or not" \
    "jq -e '.shadow.policies[0] | .policy == \"lua:last-node\" and .profile == \"default-scheduler\" and
            .decisions == $scheduled and .agree + .disagree == .decisions and .disagree > 0 and .errors == 0' '$T/last.json' >/dev/null"
check_eval "each disagreement: the pod, the profile's node (where the pod went) and the shadow's, with both scores" \
    "jq -e '(.placements | map({(.pod): .node}) | add) as \$where |
            (.shadow.policies[0].disagreements | length) as \$n | \$n > 0 and
            ([.shadow.policies[0].disagreements[] |
             select(.live.node == \$where[.pod] and .shadow.node != .live.node and
                    .shadow.total == .shadow.profileScore + .shadow.shadowScore and
                    .live.total == .live.profileScore + .live.shadowScore and
                    .shadow.total > .live.total)] | length == \$n)' '$T/last.json' >/dev/null"
check_eval "the log keeps the latest disagreements, newest first" \
    "jq -e '[.shadow.policies[0].disagreements[].cycle] | . == (sort | reverse) and length == ([length, 256] | min)' '$T/last.json' >/dev/null"
check_eval "the configured weight (2) multiplies the shadow's score" \
    "jq -e '[.shadow.policies[0].disagreements[] | .shadow.shadowScore] | max == 200' '$T/conf.json' >/dev/null"
"$M" simulate --generate "$GEN" --shadow "$D/shadow-odd-nodes.lua" --output json >"$T/odd.json"
check_eval "a shadow Filter: the profile's node it refused, with the reason; its choice among the nodes it kept" \
    "jq -e '.shadow.policies[0].disagreements | length > 0 and
            all(.[]; .liveNodeRejected == \"lua:odd-nodes: even node\" and (.shadow.node | test(\"[13579]\$\")) and
                     .shadowFeasibleNodes < .feasibleNodes)' '$T/odd.json' >/dev/null"
"$M" simulate --generate "$GEN" --shadow "$D/shadow-last-node.lua" >"$T/last.txt"
check "the table: the counts and one line per disagreement" \
    sh -c "grep -Eq '^  lua:last-node beside profile default-scheduler: $scheduled decisions, [0-9]+ agree, [1-9][0-9]* disagree, 0 errors \\(CPU [0-9.]+ s\\)\$' '$T/last.txt' &&
           grep -Eq '^    default/pod-[0-9]+: profile node-[0-9]+ \\([0-9]+ \\+ [0-9]+\\), shadow node-[0-9]+ \\([0-9]+ \\+ [0-9]+\\)\$' '$T/last.txt'"
"$M" simulate --generate "$GEN" --policy "$D/shadow-last-node.lua" --shadow "$D/shadow-last-node.lua" \
    --output json >"$T/both.json"
check_eval "the same file live and in shadow: the shadow is lua:last-node.shadow" \
    "jq -e '.shadow.policies[0].policy == \"lua:last-node.shadow\"' '$T/both.json' >/dev/null"

# --- nothing live: sched.permit refused ------------------------------------------------------
# gang.lua parks the two pods of an incomplete gang at Permit, where they
# wait until they time out; the shadow tries to release (or else reject)
# every pod it saw before.
"$M" simulate --cluster "$D/shadow-gang.yaml" --policy policies/gang.lua >"$T/gang.txt" 2>/dev/null
"$M" simulate --cluster "$D/shadow-gang.yaml" --policy policies/gang.lua --shadow "$D/shadow-releaser.lua" \
    >"$T/gang-shadow.txt" 2>"$T/gang-shadow.err"
check "a shadow's sched.permit.allow/deny: refused, the waiting pods still time out, placements unchanged" \
    sh -c "[ \$(grep -c '^ml/job-[01] -> (unschedulable) rejected due to timeout after waiting at Permit' '$T/gang-shadow.txt') = 2 ] &&
           sed '/^\$/q' '$T/gang.txt' | sort >'$T/gang.a' && sed '/^\$/q' '$T/gang-shadow.txt' | sort >'$T/gang.b' &&
           cmp '$T/gang.a' '$T/gang.b'"
check_eval "the refusal logged once" \
    "[ \"\$(grep -c 'sched.permit.allow/deny refused: a shadow policy changes no live decision' '$T/gang-shadow.err')\" = 1 ]"

# --- budgets --------------------------------------------------------------------------------
"$M" simulate --generate nodes=10,pods=20 --shadow "$D/shadow-failing.lua" --output json >"$T/fail.json" 2>"$T/fail.err"
"$M" simulate --generate nodes=10,pods=20 --output json >"$T/fail-live.json"
check_eval "a failing shadow policy: its errors counted, disabled after 10, the placements unchanged" \
    "jq -e '.shadow.policies[0].errors == 10' '$T/fail.json' >/dev/null &&
     grep -q 'policy lua:failing: error: disabled after 10 consecutive failures' '$T/fail.err' &&
     [ \"\$(jq -c 'del(.shadow)' '$T/fail.json')\" = \"\$(jq -c . '$T/fail-live.json')\" ]"
check_eval "the cycles after it was disabled: skipped, not counted as decisions (it would agree with all)" \
    "jq -e '.shadow.policies[0] | .skipped == 10 and .decisions == 0 and .agree == 0' '$T/fail.json' >/dev/null"
"$M" simulate --generate nodes=10,pods=20 --shadow "$D/shadow-failing.lua" >"$T/fail.txt" 2>/dev/null
check "the table: the skipped cycles under the counts" \
    grep -Eq '^    10 cycles skipped while the policy was disabled or not loaded \(not decisions\)$' "$T/fail.txt"
sed "s|FILE|$D/shadow-slow.lua|" >"$T/slow.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: lua:slow
  pluginConfig:
  - name: lua:slow
    args: {file: FILE, mode: shadow, budgetMs: 5, maxConsecutiveFailures: 0}
YAML
"$M" simulate --generate nodes=10,pods=20 --config "$T/slow.yaml" --output json >"$T/slow.json" 2>/dev/null
check_eval "a shadow Filter that never returns is stopped at its 5 ms budget in every pass" \
    "jq -e '.shadow.policies[0] | .decisions == 20 and .disagree == 20 and .cpuMaxSeconds >= 0.005 and
            (.disagreements[0].liveNodeRejected | test(\"stopped after its CPU budget \\\\(budgetMs\\\\) of 5 ms\"))' '$T/slow.json' >/dev/null &&
     [ \"\$(jq -c 'del(.shadow)' '$T/slow.json')\" = \"\$(jq -c . '$T/fail-live.json')\" ]"

# --- configuration errors -------------------------------------------------------------------
sed 's/mode: shadow/mode: dark/' "$D/shadow-config.yaml" >"$T/bad.yaml"
"$M" simulate --generate nodes=2,pods=1 --config "$T/bad.yaml" >"$T/bad.out" 2>&1
check_eval "mode: dark is refused with upstream's message shape (exit 2)" \
    "[ $? = 2 ] && grep -q 'profiles\\[0\\].pluginConfig\\[0\\].args.mode: Unsupported value: \"dark\": supported values: \"live\", \"shadow\"' '$T/bad.out'"
"$M" simulate --generate nodes=2,pods=1 --shadow >"$T/noarg.out" 2>&1
check_eval "--shadow without a file: exit 2" "[ $? = 2 ] && grep -q 'needs a file' '$T/noarg.out'"

tap_done
