#!/bin/sh
# `moonsched run` flags that are checked before any connection: the
# metrics bind address, --leader-elect, --controllers. TAP output. B: the build directory (default: build).
set -u
B=${B:-build}
M="$B/moonsched"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib/tap.sh
tap_need "$M"
tap_on_failure() { sed 's/^/# /' "$T/out"; }

for addr in bogus 127.0.0.1 127.0.0.1:99999 "::1:80"; do
    "$M" run --kubeconfig /nonexistent --metrics-bind-address "$addr" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -Fq -- "--metrics-bind-address: address \"$addr\"" "$T/out"; then
        ok "--metrics-bind-address $addr is a usage error naming the value"
    else
        not_ok "--metrics-bind-address $addr is a usage error naming the value (exit $rc)"
    fi
done
# Accepted addresses get as far as the kubeconfig (which does not exist).
for addr in 0 "" 127.0.0.1:0 "[::1]:0"; do
    "$M" run --kubeconfig /nonexistent "--metrics-bind-address=$addr" >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'metrics-bind-address' "$T/out"; then
        ok "--metrics-bind-address '$addr' is accepted"
    else
        not_ok "--metrics-bind-address '$addr' is accepted"
    fi
done
"$M" run --help >"$T/out" 2>&1
if grep -q -- '--metrics-bind-address ADDR:PORT' "$T/out"; then ok "run --help lists --metrics-bind-address"
else not_ok "run --help lists --metrics-bind-address"; fi

for v in yes 1 ""; do
    "$M" run --kubeconfig /nonexistent "--leader-elect=$v" >"$T/out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -Fq -- "--leader-elect: expected true or false, got \"$v\"" "$T/out"; then
        ok "--leader-elect=$v is a usage error naming the value"
    else
        not_ok "--leader-elect=$v is a usage error naming the value (exit $rc)"
    fi
done
for f in --leader-elect --leader-elect=true --leader-elect=false; do
    "$M" run "$f" --kubeconfig /nonexistent >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'leader-elect' "$T/out"; then ok "$f is accepted"
    else not_ok "$f is accepted"; fi
done
"$M" run --help >"$T/out" 2>&1
if grep -q -- '--leader-elect\[=BOOL\]' "$T/out"; then ok "run --help lists --leader-elect"
else not_ok "run --help lists --leader-elect"; fi

# --controllers: known names (and -NAME) are accepted, others are usage errors
for v in taint-eviction -taint-eviction taint-eviction,-taint-eviction; do
    "$M" run "--controllers=$v" --kubeconfig /nonexistent >"$T/out" 2>&1
    if grep -q '/nonexistent' "$T/out" && ! grep -q 'controllers' "$T/out"; then ok "--controllers=$v is accepted"
    else not_ok "--controllers=$v is accepted"; fi
done
"$M" run --controllers=node-lifecycle --kubeconfig /nonexistent >"$T/out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -Fq 'unknown controller "node-lifecycle" (known: taint-eviction)' "$T/out"; then
    ok "--controllers with an unknown name is a usage error naming it"
else
    not_ok "--controllers with an unknown name is a usage error naming it (exit $rc)"
fi

tap_done
