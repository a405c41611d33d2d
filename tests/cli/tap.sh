# TAP output for the command-line suites, sourced from the repository root:
# ok and not_ok (with optional diagnostic lines) number the tests in n and
# count the failures in failed.
n=0
failed=0

ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'
}
