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
# B: the build directory (default: build).
set -u
B=${B:-build}
M="$B/moonsched"
H=tests/hostile
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib/tap.sh
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
    timeout "$TIMEOUT" "$M" simulate --cluster "$H/cluster.yaml" --stats "$@" >"$T/out" 2>"$T/err"
    rc=$?
    took=$(elapsed "$t0" "$(now)")
    want=0
    [ "$(failed_calls)" -gt 0 ] 2>/dev/null && want=3
    check_run "$d: simulate exits $want within ${LIMIT} s (took $took s)" \
        sh -c "test $rc -eq $want && awk -v t=$took -v l=$LIMIT 'BEGIN { exit !(t < l) }'"
}

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

tap_done
