#!/bin/bash
# The soak in brief, in `make test` (TAP): tests/e2e/soak.sh for 30 s with
# a sample every 6 s, a node action every 2 s, a policy version every 5 s,
# the API server restarted after 15, so that the soak keeps working between
# its long runs (`make soak`). Skips, as the other end-to-end suites, when
# the API server is not built.
here=$(cd "$(dirname "$0")" && pwd)
bin=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
if [ ! -x "$bin/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    echo "1..0 # SKIP kube-apiserver or etcd not available (run tests/e2e/build-kube.sh)"
    exit 0
fi
SOAK_SECONDS=${SOAK_SECONDS:-30} SOAK_INTERVAL=${SOAK_INTERVAL:-6} SOAK_NODE_EVERY=${SOAK_NODE_EVERY:-2} \
    SOAK_POLICY_EVERY=${SOAK_POLICY_EVERY:-5} exec bash "$here/soak.sh"
