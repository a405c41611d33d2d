#!/bin/sh
# Runs every suite and ends with one line "N passed, N failed, N skipped".
# Unit tests (cmocka, TAP output) in a normal and an ASan+UBSan build, the
# command-line suites (tests/cli/test_*.sh, TAP output), the end-to-end
# suites against a real kube-apiserver (tests/e2e/test_*.sh, TAP output),
# the busted specs of the Lua layer (run under luajit against
# $B/libmoonsched.so, TAP output), luacheck over the Lua sources, and each
# fuzz target for a bounded time (FUZZ_SECONDS, default 10).
set -u
B=${B:-build}
pass=0
fail=0
skip=0
failed_names=""

count_tap() {   # name, file with TAP output, exit code
    # A skipped check ("ok N - ... # SKIP why") or suite ("1..0 # SKIP why")
    # did not pass: it is counted apart.
    k=$(grep -Eci '^ok .*# skip' "$2" || true)
    p=$(($(grep -c '^ok ' "$2" || true) - k))
    k=$((k + $(grep -Eci '^1\.\.0 *# skip' "$2" || true)))
    f=$(grep -c '^not ok ' "$2" || true)
    if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed or exited non-zero without a failing assertion
        echo "not ok - $1 exited with $3" >>"$2"
    fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
    if [ "$f" -ne 0 ]; then
        failed_names="$failed_names $1"
        grep -v '^ok ' "$2" | head -n 40
    fi
    printf '%-40s %4d passed, %d failed, %d skipped\n' "$1" "$p" "$f" "$k"
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT

for t in $(find "$B/tests" "$B/tests-asan" -type f -name "test_*" ! -name "*.d" 2>/dev/null | sort); do
    [ -x "$t" ] || continue
    CMOCKA_MESSAGE_OUTPUT=TAP ASAN_OPTIONS=detect_leaks=1 "$t" >"$out" 2>&1
    count_tap "${t#"$B"/}" "$out" $?
done

for t in tests/cli/test_*.sh; do
    [ -f "$t" ] || continue
    B="$B" sh "$t" >"$out" 2>&1
    count_tap "cli/$(basename "$t" .sh)" "$out" $?
done

# End-to-end suites against a real kube-apiserver (bash: they source
# tests/e2e/kube-env.sh); each skips itself when the binaries are missing.
for t in tests/e2e/test_*.sh; do
    [ -f "$t" ] || continue
    B="$B" bash "$t" >"$out" 2>&1
    count_tap "e2e/$(basename "$t" .sh)" "$out" $?
done

# busted's TAP has one "ok"/"not ok" line per test; an error outside any
# test makes it exit non-zero, which count_tap turns into a failure.
if [ -f "$B/libmoonsched.so" ] && command -v busted >/dev/null 2>&1 &&
   command -v luajit >/dev/null 2>&1; then
    for d in tests/lua policies; do
        [ -d "$d" ] || continue
        MOONSCHED_LIB="$B/libmoonsched.so" busted --lua=luajit -o TAP "$d" >"$out" 2>/dev/null
        count_tap "busted/$d" "$out" $?
    done
fi
if command -v luacheck >/dev/null 2>&1; then
    if luacheck -q --no-color lua tests/lua $(ls -d policies tests/bench 2>/dev/null) >"$out" 2>&1; then
        echo "ok - luacheck" >"$out.tap"; rc=0
    else
        cat "$out"; echo "not ok - luacheck" >"$out.tap"; rc=1
    fi
    count_tap "luacheck" "$out.tap" $rc
    rm -f "$out.tap"
fi

for f in "$B"/fuzz/fuzz_*; do
    [ -x "$f" ] || continue
    name=$(basename "$f")
    corpus=tests/fuzz/corpus/${name#fuzz_}
    work=$(mktemp -d)
    [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null
    if "$f" -max_total_time="${FUZZ_SECONDS:-10}" -rss_limit_mb=2048 "$work" >"$out" 2>&1; then
        echo "ok - $name" >"$out.tap"; rc=0
    else
        tail -n 30 "$out"; echo "not ok - $name" >"$out.tap"; rc=1
    fi
    count_tap "fuzz/$name" "$out.tap" $rc
    rm -rf "$work" "$out.tap"
done

[ -n "$failed_names" ] && echo "failing:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
