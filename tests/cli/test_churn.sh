#!/bin/sh
# The short form of `make churn` (tests/churn/churn.c): CHURN_CYCLES
# (default 2,000,000) pods created, scheduled, bound and deleted through
# the scheduler's event handlers on 10 nodes with 100 pods alive at a time.
# The resident set stays within 4 MiB of its size after the warm-up and
# the interner reuses the ids of the names it released (a scheduler that
# kept every pod name would grow by about 80 MiB here). TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh
CHURN="$B/churn/churn"
CYCLES=${CHURN_CYCLES:-2000000}

tap_need "$CHURN"
"$CHURN" "$CYCLES" >"$T/out" 2>&1
rc=$?
sed 's/^/# /' "$T/out"
check_eval "$CYCLES pods through the scheduler, every one bound" \
    "grep -Eq '^churn: +$CYCLES cycles ' '$T/out' && ! grep -q 'not bound\|unschedulable\|^churn: pod ' '$T/out'"
check_eval "the resident set flat after the warm-up" "! grep -q 'FAIL: the resident set' '$T/out'"
check_eval "the ids of released pod names reused" "! grep -q 'FAIL: .* new ids' '$T/out'"
check_eval "churn exits 0" "[ $rc -eq 0 ]"
tap_done
