#!/bin/sh
# The hostile-policy suite: each policy in tests/hostile/*.lua attacks the
# scheduler (backtracking patterns, huge strings, sorts, recursion, growing
# state, tampering, escapes, bytecode, errors in every hook). Each runs in
# `simulate` on tests/hostile/cluster.yaml in a profile of its own next to
# the default profile: the run must end in seconds, the policy's calls fail
# with what its "-- expect:" line says (an extended regular expression: a
# policy that grows memory says "its memory cap or its CPU budget", as
# which comes first depends on the machine's speed), and the default
# profile's 20 pods are all placed. Each policy's outcome and wall time
# are TAP comments. test_hostile_limits.sh runs the memory-growing ones
# over a range of budgets and caps.
# The hooks that the default cluster never calls have policies of their
# own, each an endless loop, an allocation bomb and an error: add_pod and
# remove_pod (tests/hostile/preemption/, on a cluster where the hostile
# profile's pods must preempt) and deschedule and evictable
# (tests/hostile/descheduler/, in a `simulate --deschedule` pass).
# B: the build directory (default: build).
. tests/lib/cli.sh
H=tests/hostile
. tests/lib/hostile.sh
LIMIT=${HOSTILE_SECONDS:-20}      # wall seconds a run may take
TIMEOUT=${HOSTILE_TIMEOUT:-60}   # when a run that hangs is killed

# check_run DESCRIPTION COMMAND...: like check, but what it shows on a
# failure is the end of the last simulate run's standard error.
check_run() {
    d=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$d"; else not_ok "$d" "$(tail -n 5 "$T/err")"; fi
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

tap_need "$M"

# simulate on the suite's cluster with the arguments given; checks that it
# completes in time, with exit 3 when the policy failed calls (0 when not),
# and sets took (wall seconds).
run() {   # description, then simulate's arguments
    d=$1
    shift
    t0=$(now)
    timeout "$TIMEOUT" "$M" simulate --cluster "$cluster" --stats "$@" >"$T/out" 2>"$T/err"
    rc=$?
    took=$(elapsed "$t0" "$(now)")
    want=0
    [ "$(failed_calls)" -gt 0 ] 2>/dev/null && want=3
    check_run "$d: simulate exits $want within ${LIMIT} s (took $took s)" \
        sh -c "test $rc -eq $want && awk -v t=$took -v l=$LIMIT 'BEGIN { exit !(t < l) }'"
}

cluster=$H/cluster.yaml
for f in "$H"/*.lua; do
    name=$(basename "$f" .lua)
    expect=$(sed -n 's/^-- expect: //p' "$f")
    hostile_config "$name" "$f"
    run "$name" --config "$T/config.yaml"
    nfailed=$(failed_calls)
    check_run "$name: its calls fail with \"$expect\"" \
        sh -c "test '${nfailed:-0}' -gt 0 && grep -Eq -- '$expect' '$T/err'"
    check_run "$name: the other profile's 20 pods are placed" test "$(placed bystander)" -eq 20
    echo "# $name: $(calls_line); victims placed $(placed victim)/20; ${took} s"
done

# The command of the report: the backtracking policy added to every
# profile with --policy, the default one too.
run "--policy backtrack-find.lua" --policy "$H/backtrack-find.lua"
check_run "--policy backtrack-find.lua: stopped at its budget, then disabled" \
    sh -c "grep -q 'stopped after its CPU budget' '$T/err' && grep -q 'disabled 1 times' '$T/err'"
check_run "--policy backtrack-find.lua: the default profile's pods placed once it is disabled" \
    test "$(placed bystander)" -eq 20
echo "# backtrack-find (--policy): $(calls_line); ${took} s"

# add_pod and remove_pod, called in preemption's dry runs: each failure
# rules its node out of that dry run, so nothing is preempted while the
# policy fails; after 10 failures in a row it is disabled, and the 4
# preemptors preempt and are placed; the default profile's 20 pods are
# placed throughout.
cluster=$H/preemption/cluster.yaml
for f in "$H"/preemption/*.lua; do
    name=$(basename "$f" .lua)
    hook=$(echo "${name%-*}" | tr - _)
    expect=$(sed -n 's/^-- expect: //p' "$f")
    hostile_config "$name" "$f"
    run "$name" --config "$T/config.yaml"
    check_run "$name: its $hook calls fail with \"$expect\"" grep -Eq -- "policy lua:$name: error: ($expect)" "$T/err"
    check_run "$name: disabled after 10 failures of $hook in a row" \
        grep -q "disabled after 10 consecutive failures of $hook" "$T/err"
    check_run "$name: then the 4 preemptors preempt and are placed" \
        sh -c "grep -q '^  preempted default/low-' '$T/out' && test \$(grep -c '^default/victim-0[1-4] -> f[1-4]' '$T/out') -eq 4"
    check_run "$name: the other profile's 20 pods are placed" test "$(placed bystander)" -eq 20
    echo "# $name: $(calls_line); ${took} s"
done

# deschedule and evictable, in a descheduling pass (simulate --deschedule)
# whose profile "hostile" runs the policy beside
# RemovePodsViolatingNodeTaints and whose profile "bystander" evicts the
# namespace of that name. A failed deschedule call evicts nothing (the
# strategy beside it evicts the namespace's 12 pods); a failed evictable
# call protects the pod it was asked about, with the error as the reason,
# until the policy is disabled after 10 failures in a row (the 2 pods
# left are then evicted). The pass completes and simulate exits 3, with
# the policy's summary line, as for a scheduling policy that failed.
cluster=$H/descheduler/cluster.yaml
for f in "$H"/descheduler/*.lua; do
    name=$(basename "$f" .lua)
    hook=${name%-*}
    expect=$(sed -n 's/^-- expect: //p' "$f")
    desched_config "$name" "$f" "$hook"
    t0=$(now)
    timeout "$TIMEOUT" "$M" simulate --cluster "$cluster" --deschedule "$T/policy.yaml" >"$T/out" 2>"$T/err"
    rc=$?
    took=$(elapsed "$t0" "$(now)")
    check_run "$name: the pass completes (exit 3) within ${LIMIT} s (took $took s)" \
        sh -c "test $rc -eq 3 && awk -v t=$took -v l=$LIMIT 'BEGIN { exit !(t < l) }'"
    check_run "$name: its summary line says its $hook calls failed" \
        grep -Eq "^moonsched: policy lua:$name \\(profile hostile\\): [0-9]+ of [0-9]+ calls failed" "$T/err"
    check_run "$name: its $hook calls fail with \"$expect\"" grep -Eq -- "policy lua:$name: error: ($expect)" "$T/err"
    if [ "$hook" = evictable ]; then
        check_run "$name: 10 pods protected with its error as the reason, then disabled" \
            sh -c "test \$(grep -Ec '^hostile/h-[0-9]+ +tainted +RemovePodsViolatingNodeTaints +policy $name: ($expect)' '$T/out') -eq 10 &&
                   grep -q 'disabled after 10 consecutive failures of evictable' '$T/err'"
        check_run "$name: the 2 pods left evicted once it is disabled" test "$(evicted hostile)" -eq 2
    else
        check_run "$name: the strategy beside it evicts its 12 pods" test "$(evicted hostile)" -eq 12
    fi
    check_run "$name: the other profile's 4 pods evicted to a free node" test "$(evicted bystander)" -eq 4
    echo "# $name: $(grep -E '^[0-9]+ evicted' "$T/out"); ${took} s"
done

tap_done
