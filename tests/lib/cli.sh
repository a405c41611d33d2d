# shellcheck shell=sh
# The start of every CLI suite (tests/cli/test_*.sh), sourced from the
# repository's root: set -u, B (the build directory, default build), M (its
# moonsched), D (the suites' data), T (a scratch directory, removed at
# exit), stop_at_exit, and the TAP helpers (tests/lib/tap.sh).
set -u
B=${B:-build}
M="$B/moonsched"
D=tests/cli/data
T=$(mktemp -d)
cli_stop=""
# stop_at_exit PID: a background job of the suite, stopped (TERM, then
# reaped) when the suite exits, however it exits; one the suite already
# reaped is left alone (its PID may be another process's by then).
stop_at_exit() { cli_stop="$cli_stop $1"; }
cli_cleanup() {
    # (into a file: a command substitution is a subshell, without the jobs)
    jobs -p >"$T/jobs"
    _running=" $(tr '\n' ' ' <"$T/jobs") "
    for _p in $cli_stop; do
        case $_running in *" $_p "*) kill "$_p" 2>/dev/null && wait "$_p" 2>/dev/null ;; esac
    done
    rm -rf "$T"
}
trap cli_cleanup EXIT
. tests/lib/tap.sh
