#!/bin/sh
# Each policy of tests/hostile/ HOSTILE_RUNS times (default 20) in
# `simulate` built with ASan and UBSan ($B/moonsched-asan), as
# test_hostile_policies.sh runs them, with a CPU hog on the other core that
# it starts and stops itself: those of tests/hostile/ and
# tests/hostile/preemption/ beside the default profile on their clusters,
# those of tests/hostile/descheduler/ in a `simulate --deschedule` pass. A
# run fails when it does not exit 3 (it completed and the policy failed),
# a sanitizer reports, or the bystanders are not all served (the default
# profile's 20 pods placed; in a descheduling pass, the other profile's 4
# pods evicted to a free node). Prints runs and failures per policy; exits
# 1 on any.
set -u
B=${B:-build}
M="$B/moonsched-asan"
H=tests/hostile
RUNS=${HOSTILE_RUNS:-20}
. tests/lib/hostile.sh
. tests/lib/hog.sh
T=$(mktemp -d)
trap 'hog_stop; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
[ -x "$M" ] || { echo "asan-sweep: $M not built (make hostile-asan)" >&2; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

hog_start
total=0
bad=0
# sweep KIND FILE...: KIND "schedule" runs each file's policy in a profile
# beside the default one on $cluster, "deschedule" in a descheduling pass.
sweep() {
    kind=$1
    shift
    for f in "$@"; do
        name=$(basename "$f" .lua)
        if [ "$kind" = deschedule ]; then
            desched_config "$name" "$f" "${name%-*}"
        else
            hostile_config "$name" "$f"
        fi
        fails=0
        i=0
        while [ "$i" -lt "$RUNS" ]; do
            i=$((i + 1))
            if [ "$kind" = deschedule ]; then
                timeout 300 "$M" simulate --cluster "$cluster" --deschedule "$T/policy.yaml" >"$T/out" 2>"$T/err"
                rc=$?
                served=$(evicted bystander)
                want=4
            else
                timeout 300 "$M" simulate --cluster "$cluster" --config "$T/config.yaml" >"$T/out" 2>"$T/err"
                rc=$?
                served=$(placed bystander)
                want=20
            fi
            # 3: the run completed and the policy failed, as every one here does.
            if [ "$rc" -ne 3 ] || grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$T/err" ||
               [ "$served" -ne "$want" ]; then
                fails=$((fails + 1))
                cp "$T/err" "$T/$name.$i.err"
                echo "# $name run $i: exit $rc; bystanders $served/$want; $(grep -m 1 'ERROR\|runtime error' "$T/err")" >&2
            fi
        done
        total=$((total + RUNS))
        bad=$((bad + fails))
        printf '%-26s %3d runs, %d failed\n' "$name" "$RUNS" "$fails"
    done
}
cluster=$H/cluster.yaml
sweep schedule "$H"/*.lua
cluster=$H/preemption/cluster.yaml
sweep schedule "$H"/preemption/*.lua
cluster=$H/descheduler/cluster.yaml
sweep deschedule "$H"/descheduler/*.lua
hog_stop
printf '%-26s %3d runs, %d failed\n' "all" "$total" "$bad"
[ "$bad" -eq 0 ]
