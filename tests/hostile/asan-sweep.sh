#!/bin/sh
# Each policy of tests/hostile/ HOSTILE_RUNS times (default 20) in
# `simulate` built with ASan and UBSan ($B/moonsched-asan), beside the
# default profile as test_hostile_policies.sh runs them, with a CPU hog on
# the other core that it starts and stops itself. A run fails when it does
# not exit 3 (it completed and the policy failed), a sanitizer reports,
# or the default profile's 20 pods are
# not all placed. Prints runs and failures per policy; exits 1 on any.
set -u
B=${B:-build}
M="$B/moonsched-asan"
H=tests/hostile
RUNS=${HOSTILE_RUNS:-20}
. tests/lib/hostile.sh
T=$(mktemp -d)
HOG=
trap '[ -n "$HOG" ] && kill "$HOG" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
[ -x "$M" ] || { echo "asan-sweep: $M not built (make hostile-asan)" >&2; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

( while :; do :; done ) &
HOG=$!
total=0
bad=0
for f in "$H"/*.lua; do
    name=$(basename "$f" .lua)
    hostile_config "$name" "$f"
    fails=0
    i=0
    while [ "$i" -lt "$RUNS" ]; do
        i=$((i + 1))
        timeout 300 "$M" simulate --cluster "$H/cluster.yaml" --config "$T/config.yaml" \
            >"$T/out" 2>"$T/err"
        rc=$?
        # 3: the run completed and the policy failed, as every one here does.
        if [ "$rc" -ne 3 ] || grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$T/err" ||
           [ "$(placed bystander)" -ne 20 ]; then
            fails=$((fails + 1))
            cp "$T/err" "$T/$name.$i.err"
            echo "# $name run $i: exit $rc; $(grep -m 1 'ERROR\|runtime error' "$T/err")" >&2
        fi
    done
    total=$((total + RUNS))
    bad=$((bad + fails))
    printf '%-26s %3d runs, %d failed\n' "$name" "$RUNS" "$fails"
done
kill "$HOG" 2>/dev/null
wait "$HOG" 2>/dev/null
HOG=
printf '%-26s %3d runs, %d failed\n' "all" "$total" "$bad"
[ "$bad" -eq 0 ]
