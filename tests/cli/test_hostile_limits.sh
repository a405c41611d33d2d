#!/bin/sh
# The memory-growing hostile policies (tests/hostile/) over a range of CPU
# budgets and memory caps, with a CPU hog on the other core that the suite
# starts and stops itself. Which limit stops a call first then varies from
# call to call: a call stopped at its budget lets the next ones get further
# (a loop that was hot gets compiled), and the next memory error may be
# raised inside compiled code. Whatever the order, each run must exit 3
# (simulate's code for a policy that failed: never a crash), the policy's
# calls fail at one of its two limits, and the default
# profile's 20 pods are placed. The runs and their outcomes are TAP
# comments. B: the build directory (default: build).
. tests/lib/cli.sh
H=tests/hostile
trap 'exit 1' INT TERM
. tests/lib/hostile.sh
. tests/lib/hog.sh
TIMEOUT=${HOSTILE_TIMEOUT:-120}   # when a run that hangs is killed
POLICIES=${HOSTILE_POLICIES:-"concat-loop huge-rep growing-state load-huge sort-huge"}
BUDGETS=${HOSTILE_BUDGETS:-"1 5 20 200"}   # ms
CAPS=${HOSTILE_CAPS:-"8 64"}               # MiB

tap_need "$M"

# Error lines that are neither limit (a crash's or sanitizer's report is).
other_errors() { grep '^policy lua:' "$T/err" | grep -Ev 'exceeded its memory cap|stopped after its CPU budget|disabled after' | head -n 3; }

hog_start
stop_at_exit "$hog_pid"
for name in $POLICIES; do
    for budget in $BUDGETS; do
        for cap in $CAPS; do
            hostile_config "$name" "$H/$name.lua" ", budgetMs: $budget, memoryLimitMiB: $cap"
            timeout "$TIMEOUT" "$M" simulate --cluster "$H/cluster.yaml" --stats \
                --config "$T/config.yaml" >"$T/out" 2>"$T/err"
            rc=$?
            d="$name, budgetMs $budget, memoryLimitMiB $cap"
            if [ "$rc" -eq 3 ]; then ok "$d: exit 3 (a policy failed)"; else not_ok "$d: exit 3 (a policy failed)" "exit $rc: $(tail -n 5 "$T/err")"; fi
            nfailed=$(failed_calls)
            mem=$(grep -c 'exceeded its memory cap' "$T/err")
            cpu=$(grep -c 'stopped after its CPU budget' "$T/err")
            if [ "${nfailed:-0}" -gt 0 ] && [ $((mem + cpu)) -gt 0 ] && [ -z "$(other_errors)" ]; then
                ok "$d: its calls fail at its memory cap or its CPU budget"
            else
                not_ok "$d: its calls fail at its memory cap or its CPU budget" \
                    "$(calls_line); $(other_errors)"
            fi
            check "$d: the other profile's 20 pods are placed" test "$(placed bystander)" -eq 20
            echo "# $d: exit $rc; $(calls_line); $mem at the cap, $cpu at the budget"
        done
    done
done
hog_stop

tap_done
