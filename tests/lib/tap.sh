# shellcheck shell=sh
# TAP output for the shell suites (tests/cli, tests/e2e), sourced by each:
# numbered "ok"/"not ok" lines, skips, and the plan at the end. POSIX sh.
# A suite may define tap_on_failure, which not_ok calls after its line (the
# end-to-end suites print the scheduler's log there).
n=0
failed=0
skipped=0

ok() {      # description
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok() {  # description [details, printed as comments]
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/# /'; fi
    if command -v tap_on_failure >/dev/null 2>&1; then tap_on_failure; fi
    return 0
}
# A check that could not run here: counted apart, never as a pass.
skip() {    # description reason
    n=$((n + 1))
    skipped=$((skipped + 1))
    echo "ok $n - $1 # SKIP $2"
}
# check DESCRIPTION COMMAND...: passes when the command succeeds; its output
# (first 20 lines) is shown when it fails.
check() {
    _d=$1
    shift
    _out=${T:-${dir:-/tmp}}/check.out
    if "$@" >"$_out" 2>&1; then ok "$_d"; else not_ok "$_d" "$(head -n 20 "$_out")"; fi
}
# check_eval DESCRIPTION EXPRESSION: passes when the shell expression does.
check_eval() {
    if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}
# has_line FILE TEXT: the file has the exact line; has_text: anywhere.
has_line() { grep -Fxq -- "$2" "$1"; }
has_text() { grep -Fq -- "$2" "$1"; }
# tap_need FILE: the suite cannot run without the build's FILE; when it is
# missing that is its one (failed) check.
tap_need() {
    if [ ! -e "$1" ]; then
        echo "not ok 1 - $1 is not built"
        echo "1..1"
        exit 1
    fi
}
# The plan, last: the suite's exit status is 0 when nothing failed.
tap_done() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
