#!/bin/bash
# The client and the informers against a real kube-apiserver v1.20.2 + etcd
# on loopback (TAP). Skipped when the binaries are not there
# (tests/e2e/build-kube.sh builds them). Stops what it starts.
#   E2E_PERF_PODS=5000 also times a LIST of that many pods (diagnostics).
set -u
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
driver=$B/e2e/informer_check

if [ ! -x "$bin/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    echo "1..0 # SKIP kube-apiserver or etcd not available (run tests/e2e/build-kube.sh)"
    exit 0
fi
if [ ! -x "$driver" ]; then
    echo "not ok - $driver is not built (make e2e)"
    exit 1
fi

# shellcheck source=kube-env.sh
source "$here/kube-env.sh"
dir=$(mktemp -d /tmp/ms-e2e-informer.XXXXXX)
trap 'kube_stop "$dir"; rm -rf "$dir"' EXIT

if ! KUBE_BIN=$bin kube_start "$dir" >"$dir/start.log" 2>&1; then
    echo "not ok - kube-apiserver started"
    tail -n 20 "$dir/start.log" "$dir/apiserver.log" 2>/dev/null | sed 's/^/# /'
    exit 1
fi
echo "ok - kube-apiserver v1.20.2 and etcd started on loopback"

# etcd's client URL, for compacting it (from its own command line)
etcd_url=$(tr '\0' '\n' <"/proc/$(cat "$dir/etcd.pid")/cmdline" | grep -A1 -x -- '--listen-client-urls' | tail -n 1)

rc=0
timeout 120 "$driver" run "$dir/admin.kubeconfig" "$dir/scheduler.kubeconfig" "$etcd_url" 2>"$dir/driver.log" || rc=1

# Client certificates from *-data fields: the scheduler again, authenticated
# by a certificate the apiserver's client CA signed (CN is the user name).
openssl req -newkey rsa:2048 -nodes -subj "/CN=system:kube-scheduler" \
    -keyout "$dir/sched-cert.key" -out "$dir/sched-cert.csr" 2>/dev/null
openssl x509 -req -in "$dir/sched-cert.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 1 -out "$dir/sched-cert.crt" 2>/dev/null
b64() { base64 -w0 <"$1"; }
cat >"$dir/cert.kubeconfig" <<KC
apiVersion: v1
kind: Config
current-context: cert
clusters:
- name: test
  cluster:
    server: $KUBE_URL
    certificate-authority-data: $(b64 "$dir/ca.crt")
users:
- name: sched-cert
  user:
    client-certificate-data: $(b64 "$dir/sched-cert.crt")
    client-key-data: $(b64 "$dir/sched-cert.key")
contexts:
- name: cert
  context: {cluster: test, user: sched-cert}
KC
timeout 30 "$driver" probe "$dir/cert.kubeconfig" ok 2>>"$dir/driver.log" | sed 's/^ok [0-9]*/ok/; s/^not ok [0-9]*/not ok/' || rc=1

# A token file (relative to the kubeconfig) and tls-server-name: the
# certificate is checked against "localhost" while connecting to 127.0.0.1.
mkdir -p "$dir/sub"
grep ',system:kube-scheduler,' "$dir/tokens.csv" | cut -d, -f1 >"$dir/sub/token"
port=${KUBE_URL##*:}
cat >"$dir/sub/file.kubeconfig" <<KC
current-context: f
clusters: [{name: t, cluster: {server: "https://127.0.0.1:$port", certificate-authority: ../ca.crt, tls-server-name: localhost}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: f, context: {cluster: t, user: u}}]
KC
timeout 30 "$driver" probe "$dir/sub/file.kubeconfig" ok 2>>"$dir/driver.log" | sed 's/^ok [0-9]*/ok/; s/^not ok [0-9]*/not ok/' || rc=1

# A CA the server's certificate does not chain to: refused, not ignored.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=other-ca" \
    -keyout "$dir/other.key" -out "$dir/other.crt" 2>/dev/null
sed "s#certificate-authority: .*#certificate-authority: $dir/other.crt#" "$dir/scheduler.kubeconfig" >"$dir/wrong-ca.kubeconfig"
timeout 30 "$driver" probe "$dir/wrong-ca.kubeconfig" tls-error 2>>"$dir/driver.log" | sed 's/^ok [0-9]*/ok/; s/^not ok [0-9]*/not ok/' || rc=1

# ... unless verification is explicitly off.
sed "s#certificate-authority: .*#insecure-skip-tls-verify: true#" "$dir/scheduler.kubeconfig" >"$dir/insecure.kubeconfig"
timeout 30 "$driver" probe "$dir/insecure.kubeconfig" ok 2>>"$dir/driver.log" | sed 's/^ok [0-9]*/ok/; s/^not ok [0-9]*/not ok/' || rc=1

# A token the server does not know.
sed "s#token: .*#token: not-a-valid-token#" "$dir/scheduler.kubeconfig" >"$dir/bad-token.kubeconfig"
timeout 30 "$driver" probe "$dir/bad-token.kubeconfig" forbidden 2>>"$dir/driver.log" | sed 's/^ok [0-9]*/ok/; s/^not ok [0-9]*/not ok/' || rc=1

if [ -n "${E2E_PERF_PODS:-}" ]; then
    timeout 600 "$driver" perf "$dir/admin.kubeconfig" "$E2E_PERF_PODS" 2>>"$dir/driver.log" || rc=1
fi

if [ "$rc" -ne 0 ]; then
    sed 's/^/# driver: /' "$dir/driver.log" | tail -n 30
fi
exit "$rc"
