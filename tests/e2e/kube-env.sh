#!/bin/bash
# A real etcd + kube-apiserver on loopback for end-to-end tests.
#
#   source tests/e2e/kube-env.sh
#   kube_start DIR      # starts etcd and kube-apiserver, writes DIR/admin.kubeconfig
#                       # and DIR/scheduler.kubeconfig; exports KUBE_DIR, KUBE_URL
#   kube_stop DIR       # stops both and removes their data
#
# Binaries come from tests/e2e/build-kube.sh (cached outside the repository).
set -u

# A port nothing listens on, below the kernel's ephemeral range: a port in
# that range can be the local end of any outgoing connection (every curl,
# every client), which nothing can connect to but nobody can bind either.
kube_free_port() {
    local p lo=32768
    read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
    [ "$lo" -gt 12000 ] || lo=32768
    for _ in $(seq 1 200); do
        p=$((11000 + RANDOM % (lo - 11000)))   # above 10251 and 10259, the defaults
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

kube_certs() {
    local d=$1
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=moonsched-test-ca" \
        -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
        -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/san.ext"
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
        -days 2 -extfile "$d/san.ext" -out "$d/server.crt" 2>/dev/null
    openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
    openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

kube_kubeconfig() {   # dir, name, token
    cat >"$1/$2.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: $KUBE_URL
    certificate-authority: $1/ca.crt
users:
- name: $2
  user:
    token: $3
contexts:
- name: $2
  context: {cluster: test, user: $2}
current-context: $2
KC
}

# etcd on two free ports, waiting until it answers: a port found free can be
# taken by another process before etcd binds it, so a start that fails is
# tried again on other ports. Writes DIR/etcd.pid and DIR/etcd.port.
kube_start_etcd() {
    local d=$1 etcd_port peer_port pid
    for _ in 1 2 3; do
        etcd_port=$(kube_free_port); peer_port=$(kube_free_port)
        rm -rf "$d/etcd"
        etcd --data-dir "$d/etcd" --listen-client-urls "http://127.0.0.1:$etcd_port" \
            --advertise-client-urls "http://127.0.0.1:$etcd_port" \
            --listen-peer-urls "http://127.0.0.1:$peer_port" \
            --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
            --initial-cluster "default=http://127.0.0.1:$peer_port" \
            >"$d/etcd.log" 2>&1 &
        pid=$!
        echo "$pid" >"$d/etcd.pid"
        echo "$etcd_port" >"$d/etcd.port"
        for _ in $(seq 1 60); do
            if curl -sf "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1; then
                return 0
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    echo "etcd did not start; see $d/etcd.log" >&2
    return 1
}

# kube-apiserver on a free port (or PORT), against the etcd of DIR; writes
# DIR/apiserver.pid and DIR/apiserver.port.
kube_launch_apiserver() {   # dir bin etcd-port [port]
    local d=$1 bin=$2 etcd_port=$3 api_port=${4:-}
    [ -n "$api_port" ] || api_port=$(kube_free_port)
    "$bin/kube-apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
        --bind-address=127.0.0.1 --secure-port="$api_port" --advertise-address=127.0.0.1 \
        --insecure-port=0 --tls-cert-file="$d/server.crt" --tls-private-key-file="$d/server.key" \
        --client-ca-file="$d/ca.crt" --token-auth-file="$d/tokens.csv" \
        --authorization-mode=Node,RBAC \
        --service-account-issuer=https://kubernetes.default.svc \
        --service-account-key-file="$d/sa.pub" --service-account-signing-key-file="$d/sa.key" \
        --service-cluster-ip-range=10.96.0.0/16 \
        --enable-admission-plugins=Priority \
        --disable-admission-plugins=ServiceAccount,TaintNodesByCondition \
        >"$d/apiserver.log" 2>&1 &
    echo $! >"$d/apiserver.pid"
    echo "$api_port" >"$d/apiserver.port"
}

kube_start() {
    local d=$1 bin
    bin=${KUBE_BIN:-$(bash "$(dirname "${BASH_SOURCE[0]}")/build-kube.sh" | tail -n 1)}
    mkdir -p "$d"
    kube_certs "$d"
    local admin_token sched_token
    admin_token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    sched_token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    printf '%s,admin,admin,"system:masters"\n%s,system:kube-scheduler,kube-scheduler\n' \
        "$admin_token" "$sched_token" >"$d/tokens.csv"
    local etcd_port
    kube_start_etcd "$d" || return 1
    etcd_port=$(cat "$d/etcd.port")
    local tries=1
    kube_launch_apiserver "$d" "$bin" "$etcd_port"
    export KUBE_DIR=$d KUBE_URL="https://127.0.0.1:$(cat "$d/apiserver.port")"
    kube_kubeconfig "$d" admin "$admin_token"
    kube_kubeconfig "$d" scheduler "$sched_token"
    echo "$admin_token" >"$d/admin.token"
    for _ in $(seq 1 120); do
        if curl -sf --cacert "$d/ca.crt" -H "Authorization: Bearer $admin_token" \
            "$KUBE_URL/readyz" >/dev/null 2>&1; then
            kube_grant_namespaces
            return 0
        fi
        # Its port taken between the check and the bind: again, elsewhere.
        if ! kill -0 "$(cat "$d/apiserver.pid")" 2>/dev/null && [ "$tries" -lt 3 ]; then
            tries=$((tries + 1))
            kube_launch_apiserver "$d" "$bin" "$etcd_port"
            export KUBE_URL="https://127.0.0.1:$(cat "$d/apiserver.port")"
            kube_kubeconfig "$d" admin "$admin_token"
            kube_kubeconfig "$d" scheduler "$sched_token"
        fi
        sleep 0.5
    done
    echo "kube-apiserver did not become ready; see $d/apiserver.log" >&2
    kube_stop "$d"
    return 1
}

# The apiserver of DIR killed (SIGKILL: no graceful shutdown) and started
# again on the same port and etcd; returns once it is ready.
kube_restart_apiserver() {   # dir
    local d=$1 bin pid
    bin=${KUBE_BIN:-$(bash "$(dirname "${BASH_SOURCE[0]}")/build-kube.sh" | tail -n 1)}
    pid=$(cat "$d/apiserver.pid")
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null   # (a child of this shell: else it stays a zombie)
    while [ -e "/proc/$pid" ] && ! grep -q ') Z' "/proc/$pid/stat" 2>/dev/null; do sleep 0.1; done
    kube_launch_apiserver "$d" "$bin" "$(cat "$d/etcd.port")" "$(cat "$d/apiserver.port")"
    for _ in $(seq 1 120); do
        curl -sf --cacert "$d/ca.crt" -H "Authorization: Bearer $(cat "$d/admin.token")" \
            "$KUBE_URL/readyz" >/dev/null 2>&1 && return 0
        sleep 0.5
    done
    return 1
}

# 1.20's system:kube-scheduler role has no access to namespaces (1.21 added
# list/watch for pod affinity's namespaceSelector); moonsched watches them,
# so grant what the newer role has.
kube_grant_namespaces() {
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterroles \
        '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"moonsched:namespaces"},"rules":[{"apiGroups":[""],"resources":["namespaces"],"verbs":["get","list","watch"]}]}' >/dev/null
    kube_api POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
        '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"moonsched:namespaces"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"moonsched:namespaces"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]}' >/dev/null
}

kube_stop() {
    local d=$1 pid
    for f in apiserver etcd; do
        [ -f "$d/$f.pid" ] || continue
        pid=$(cat "$d/$f.pid")
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$d/$f.pid"
    done
    rm -rf "$d/etcd"
}

# kubectl-like helper: kube_api METHOD PATH [JSON-BODY]
kube_api() {
    curl -s --cacert "$KUBE_DIR/ca.crt" -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" \
        -H 'Content-Type: application/json' -X "$1" "$KUBE_URL$2" ${3:+--data-binary "$3"}
}
