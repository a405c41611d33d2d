#!/bin/bash
# Shared start of the `moonsched run` end-to-end suites (sourced, after
# E2E_NAME is set): skips when the apiserver is not built, starts etcd and
# kube-apiserver in $dir, stops them and any moonsched ($ms_pid) on exit,
# and defines the TAP helpers ok / not_ok / check.
set -u
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
ms=$B/moonsched

if [ ! -x "$bin/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    echo "1..0 # SKIP kube-apiserver or etcd not available (run tests/e2e/build-kube.sh)"
    exit 0
fi
if [ ! -x "$ms" ]; then
    echo "not ok - $ms is not built"
    exit 1
fi

# shellcheck source=kube-env.sh
source "$here/kube-env.sh"
dir=$(mktemp -d "/tmp/ms-e2e-${E2E_NAME:-run}.XXXXXX")
ms_pid=""
cleanup() {
    if [ -n "$ms_pid" ]; then kill -9 "$ms_pid" 2>/dev/null; wait "$ms_pid" 2>/dev/null; fi
    kube_stop "$dir"
    rm -rf "$dir"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=1; echo "not ok $n - $1"
    [ -f "$dir/ms.log" ] && tail -n 15 "$dir/ms.log" | sed 's/^/# ms: /'
}
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

if ! KUBE_BIN=$bin kube_start "$dir" >"$dir/start.log" 2>&1; then
    not_ok "kube-apiserver started"
    tail -n 20 "$dir/start.log" "$dir/apiserver.log" 2>/dev/null | sed 's/^/# /'
    exit 1
fi
ok "kube-apiserver v1.20.2 and etcd started on loopback"
