#!/bin/sh
# tests/lib/hog.sh: the CPU hog a suite starts never outlives it, however
# the suite ends: hog_stop, an exit without it, TERM, INT, KILL. Each case
# is a small suite of its own in the background that starts a hog and
# writes its PID, then ends that way. TAP output.
. tests/lib/cli.sh

# gone PID: the process is gone within 10 s (the hog ends at its next
# look at its suite; the time only bounds a hang).
gone() {
    i=0
    while kill -0 "$1" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    ! kill -0 "$1" 2>/dev/null
}

# run_case NAME BODY: a suite that starts a hog, writes its PID to
# $T/NAME.pid, then runs BODY.
run_case() {
    cat >"$T/$1.sh" <<SH
. tests/lib/hog.sh
hog_start
echo "\$hog_pid" >"$T/$1.pid.tmp" && mv "$T/$1.pid.tmp" "$T/$1.pid"
$2
SH
    # as a suite in the foreground: a background job's INT is ignored
    env --default-signal=INT sh "$T/$1.sh" &
    case_pid=$!
    stop_at_exit "$case_pid"
    i=0
    while [ ! -s "$T/$1.pid" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

run_case stop 'hog_stop; kill -0 "$hog_pid" 2>/dev/null && exit 1; exit 0'
wait "$case_pid"
check "hog_stop ends the hog and reaps it" [ $? = 0 ]
hog=$(cat "$T/stop.pid")
check "hog_start started one" [ -n "$hog" ]

run_case plain_exit 'exit 0'
wait "$case_pid"
check "an exit without hog_stop: the hog ends with its suite" gone "$(cat "$T/plain_exit.pid")"

for sig in TERM INT KILL; do
    run_case "$sig" 'while :; do sleep 1; done'
    hog=$(cat "$T/$sig.pid")
    check "$sig: the hog runs while its suite does" kill -0 "$hog"
    kill -s "$sig" "$case_pid"
    wait "$case_pid" 2>/dev/null
    check "$sig to the suite: the hog ends too" gone "$hog"
done

tap_done
