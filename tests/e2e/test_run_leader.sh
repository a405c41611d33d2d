#!/bin/bash
# Leader election of `moonsched run` on a real kube-apiserver v1.20.2 + etcd
# (TAP): replicas compete for the Lease kube-system/kube-scheduler with the
# system:kube-scheduler identity; only the holder binds; SIGTERM hands over
# at once (release), SIGKILL after leaseDuration; a replica that cannot
# renew exits non-zero. Stops everything it starts.
E2E_NAME=leader
WAIT_POLL=0.1   # takeovers are timed to a tenth of a second
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

# Each replica's view of the election, under a failed check.
tap_on_failure() {
    local f
    for f in "$dir"/ms-*.log; do
        [ -f "$f" ] || continue
        grep -E 'acquired lease|released lease|lost lease|failed to (update|release)|error retrieving|leaderelection lost' "$f" |
            tail -n 8 | cut -c1-240 | sed "s|^|# $(basename "$f" .log): |"
    done
}

declare -A rpid=()     # replica name -> pid
proxy_pid=""
stop_all() {
    local p
    for p in "${rpid[@]}" $proxy_pid; do kill -9 "$p" 2>/dev/null; done
    for p in "${rpid[@]}" $proxy_pid; do wait "$p" 2>/dev/null; done
    rpid=()
    proxy_pid=""
}
# (E2E_KEEP=DIR: the replicas', the API server's and etcd's logs are
# copied there at the end, however the suite ends, for a look)
trap 'stop_all; [ -n "${E2E_KEEP:-}" ] && cp "$dir"/*.log "$E2E_KEEP"/ 2>/dev/null; cleanup' EXIT

LEASE=/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
le() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x <= y) }'; }
sub() {   # a - b, "none" when either is missing
    if [ -z "$1" ] || [ -z "$2" ]; then echo none; return; fi
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'
}
epoch() { [ -n "$1" ] && [ "$1" != null ] && date -d "$1" +%s.%N; }   # RFC 3339 -> seconds

unbound_count() {
    kube_api GET /api/v1/namespaces/default/pods | jq --arg p "$1" \
        '[.items[] | select(.metadata.name | startswith($p)) | select((.spec.nodeName // "") == "")] | length'
}
holder() { kube_api GET "$LEASE" | jq -r '.spec.holderIdentity // ""'; }
lease_time() { epoch "$(kube_api GET "$LEASE" | jq -r ".spec.$1")"; }   # renewTime / acquireTime
log_time() {   # replica pattern: when its first line with the pattern was logged
    epoch "$(grep -m1 -- "$2" "$dir/ms-$1.log" | sed 's/^ts=\([^ ]*\) .*/\1/')"
}
transitions() { kube_api GET "$LEASE" | jq -r '.spec.leaseTransitions // 0'; }
identity_of() {   # replica: the identity it logged
    grep -m1 'attempting to acquire leader lease' "$dir/ms-$1.log" | grep -o 'identity=[^ ]*' | cut -d= -f2 | tr -d '"'
}
bound_by() {   # replica prefix: pods of `prefix` it logged as bound
    grep -c "msg=\"bound\" pod=default/$2-" "$dir/ms-$1.log"
}

# upstream's leaseDuration and renewDeadline: a leader whose renewals do
# not succeed within renewDeadline gives the lease up and exits, as
# upstream's, and on this shared 2-core machine the API server has kept
# lease requests over 2 s (at load 25-35) and 9 s (at load 40) without an
# answer; with the 2 s deadline this suite had, that happened to the
# leaders its checks were about. A short retryPeriod keeps the hand-over
# after a release quick.
LEASE_S=15 RENEW_S=10 RETRY_S=0.5
cfg=$dir/le.yaml
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nleaderElection: {leaderElect: true, leaseDuration: %ss, renewDeadline: %ss, retryPeriod: %sms}\n' \
    "$LEASE_S" "$RENEW_S" "$(awk -v r=$RETRY_S 'BEGIN { print r * 1000 }')" >"$cfg"

start_replica() {   # name [kubeconfig] [extra args]
    local name=$1 kc=${2:-$dir/scheduler.kubeconfig}
    shift; [ $# -gt 0 ] && shift
    "$ms" run --kubeconfig "$kc" --config "$cfg" --secure-port=0 -v 4 "$@" >>"$dir/ms-$name.log" 2>&1 &
    rpid[$name]=$!
}
stop_replica() {   # name signal -> exit status
    local p=${rpid[$1]}
    kill -"$2" "$p" 2>/dev/null
    wait "$p" 2>/dev/null
    local rc=$?
    unset "rpid[$1]"
    return $rc
}
gauge() {   # port
    curl -s "http://127.0.0.1:$1/metrics" | awk '/^leader_election_master_status\{name="kube-scheduler"\}/ { print $2 }'
}

for i in 1 2 3 4; do mknode "n$i" cpu=8 memory=16Gi; done

# --- two replicas: one leads, only it binds -----------------------------------
port_a=$(kube_free_port); port_b=$(kube_free_port)
start_replica a "" --metrics-bind-address "127.0.0.1:$port_a" --plain-metrics
start_replica b "" --metrics-bind-address "127.0.0.1:$port_b" --plain-metrics
check_eval "the Lease gets a holder" "wait_for 15 '[ -n \"\$(holder)\" ]'"
wait_for 10 '[ -n "$(identity_of a)" ] && [ -n "$(identity_of b)" ]'
id_a=$(identity_of a); id_b=$(identity_of b)
check_eval "identities are hostname_UUID and differ ($id_a, $id_b)" \
    "[[ \"$id_a\" =~ ^$(hostname)_[0-9a-f-]{36}\$ ]] && [ \"$id_a\" != \"$id_b\" ]"
h=$(holder)
if [ "$h" = "$id_a" ]; then leader=a standby=b lport=$port_a sport=$port_b
else leader=b standby=a lport=$port_b sport=$port_a; fi
check_eval "the holder is one of the two replicas" '[ "$h" = "$id_a" ] || [ "$h" = "$id_b" ]'
check_eval "exactly one logged 'successfully acquired lease'" \
    '[ "$(cat "$dir/ms-a.log" "$dir/ms-b.log" | grep -c "successfully acquired lease")" = 1 ]'
check_eval "the standby logs that the lock is held" \
    "wait_for 5 'grep -q \"lock is held by another\" \"\$dir/ms-$standby.log\"'"
check_eval "leader_election_master_status is 1 on the leader, 0 on the standby" \
    "wait_for 5 '[ \"\$(gauge $lport)\" = 1 ] && [ \"\$(gauge $sport)\" = 0 ]'"

mkpods first 20
check_eval "20 pods bound" "wait_for 30 '[ \"\$(unbound_count first-)\" = 0 ]'"
check_eval "only the leader bound them ($leader: $(bound_by "$leader" first), $standby: $(bound_by "$standby" first))" \
    "[ \"\$(bound_by $leader first)\" = 20 ] && [ \"\$(bound_by $standby first)\" = 0 ]"
# until the standby has seen the lease held for leaseDuration and a retry
seen=$(log_time "$standby" "lock is held by another")
sleep "$(awk -v s="$seen" -v n="$(now)" -v l=$LEASE_S -v r=$RETRY_S 'BEGIN { d = s + l + 2.2 * r - n; printf "%.2f", (d > 0 ? d : 0) }')"
check_eval "the standby never bound (after leaseDuration of renewals)" \
    "[ \"\$(grep -c 'msg=\"bound\"' \"\$dir/ms-$standby.log\")\" = 0 ] && [ \"\$(holder)\" = \"$h\" ]"

# --- SIGTERM the leader: release, the standby takes over at once --------------
t0=$(now)
stop_replica "$leader" TERM
rc=$?
check_eval "the leader exits 0 on SIGTERM" '[ "$rc" = 0 ]'
check_eval "it released the lease" "grep -q 'released lease' \"\$dir/ms-$leader.log\""
id_s=$([ "$standby" = a ] && echo "$id_a" || echo "$id_b")
wait_for 20 "[ \"\$(holder)\" = \"$id_s\" ]"
took=$(elapsed "$t0")
# From the release, not the SIGTERM (the leader first finishes its binds):
# taken at the standby's next retry, where an expiry would take a whole
# leaseDuration after the last renewal it saw.
gap=$(sub "$(lease_time acquireTime)" "$(log_time "$leader" 'released lease')")
check_eval "the standby holds the lease ${took}s after SIGTERM, ${gap}s after the release (at once: under half of leaseDuration ${LEASE_S} s)" \
    "[ \"\$(holder)\" = \"$id_s\" ] && le $gap $(awk -v l=$LEASE_S 'BEGIN { print l / 2 }')"
check_eval "leaseTransitions counted the takeover" '[ "$(transitions)" -ge 1 ]'
mkpods second 10
check_eval "pods created afterwards are bound by the new leader" \
    "wait_for 20 '[ \"\$(unbound_count second-)\" = 0 ]' && [ \"\$(bound_by $standby second)\" = 10 ]"
check_eval "the new leader reports leader_election_master_status 1" "wait_for 5 '[ \"\$(gauge $sport)\" = 1 ]'"
check_eval "a LeaderElection event says it became leader" \
    "wait_for 5 'kube_api GET /api/v1/namespaces/kube-system/events | jq -e --arg m \"$id_s became leader\" \"[.items[] | select(.reason==\\\"LeaderElection\\\" and .message==\\\$m and .involvedObject.kind==\\\"Lease\\\")] | length == 1\" >/dev/null'"

# --- SIGKILL the leader: a third replica takes over after leaseDuration --------
start_replica c
wait_for 10 '[ -n "$(identity_of c)" ]'
id_c=$(identity_of c)
sleep 1.5
check_eval "the third replica waits as standby" "[ \"\$(holder)\" = \"$id_s\" ] && ! grep -q 'successfully acquired' \"\$dir/ms-c.log\""
t0=$(now)
stop_replica "$standby" KILL
# The killed leader's last renewal (or, should one still land, the one
# before): the third replica saw it no sooner than it was written, and
# counts leaseDuration on its own clock from when it saw it, so it takes
# over at least leaseDuration after it (and up to two retries later: it
# polls the lease every retryPeriod * [1, 2.2)), however long before the
# SIGKILL that renewal was.
last=$(lease_time renewTime)
wait_for 30 "[ \"\$(holder)\" = \"$id_c\" ]"
took=$(elapsed "$t0")
gap=$(sub "$(lease_time acquireTime)" "$last")
check_eval "after SIGKILL it takes over ${took}s later, ${gap}s after the last renewal (not before leaseDuration ${LEASE_S} s)" \
    "[ \"\$(holder)\" = \"$id_c\" ] && le $(sub $LEASE_S 0.001) $gap && le $took $((LEASE_S + 5))"
mkpods third 10
check_eval "and binds the pods created afterwards" \
    "wait_for 20 '[ \"\$(unbound_count third-)\" = 0 ]' && [ \"\$(bound_by c third)\" = 10 ]"
check_eval "after SIGTERM it releases the lease" "stop_replica c TERM && [ -z \"\$(holder)\" ]"

# --- renewals fail: the leader exits non-zero after renewDeadline -------------
api_port=${KUBE_URL##*:}
proxy_port=$(kube_free_port)
python3 - "$proxy_port" "$api_port" <<'PY' >"$dir/proxy.log" 2>&1 &
import socket, sys, threading
lp, up = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", lp)); srv.listen(64)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
while True:
    c, _ = srv.accept()
    u = socket.create_connection(("127.0.0.1", up))
    threading.Thread(target=pipe, args=(c, u), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c), daemon=True).start()
PY
proxy_pid=$!
sed "s#server: .*#server: https://127.0.0.1:$proxy_port#" "$dir/scheduler.kubeconfig" >"$dir/proxied.kubeconfig"
wait_for 5 "(exec 3<>/dev/tcp/127.0.0.1/$proxy_port) 2>/dev/null"
start_replica d "$dir/proxied.kubeconfig" --metrics-bind-address 0
wait_for 10 '[ -n "$(identity_of d)" ]'
id_d=$(identity_of d)
check_eval "a replica behind a loopback proxy acquires the lease" "wait_for 10 '[ \"\$(holder)\" = \"$id_d\" ]'"
mkpods fourth 5
check_eval "and binds" "wait_for 20 '[ \"\$(unbound_count fourth-)\" = 0 ]'"
t0=$(now)
kill -9 "$proxy_pid"; wait "$proxy_pid" 2>/dev/null; proxy_pid=""
last=$(lease_time renewTime)
p=${rpid[d]}
wait_for 30 "! kill -0 $p 2>/dev/null"
took=$(elapsed "$t0")
wait "$p" 2>/dev/null
rc=$?
unset "rpid[d]"
# A renewal round starts retryPeriod after the last success and gives up
# renewDeadline after its start (the record it writes is made at once;
# the log's time is cut to the millisecond).
gap=$(sub "$(log_time d 'lost lease')" "$last")
check_eval "with the apiserver unreachable it exits non-zero (status $rc) ${took}s later, ${gap}s after its last renewal (renewDeadline ${RENEW_S} s)" \
    "[ \"$rc\" != 0 ] && le $(sub $RENEW_S 0.01) $gap && le $took $((RENEW_S + 5))"
check_eval "it logged 'lost lease' and 'leaderelection lost'" \
    "grep -q 'lost lease' \"\$dir/ms-d.log\" && grep -q 'leaderelection lost' \"\$dir/ms-d.log\""

# --- every pod bound exactly once -------------------------------------------------
dups=$(kube_api GET /api/v1/namespaces/default/events | jq '[.items[] | select(.reason=="Scheduled") | .involvedObject.name] | group_by(.) | map(select(length > 1)) | length')
check_eval "every pod was bound exactly once (no pod has two Scheduled events)" '[ "$dups" = 0 ]'
check_eval "no replica had a bind refused" '! grep -q "binding failed" "$dir"/ms-*.log'
check_eval "requests within allocatable on every node" capacity_ok

stop_all
tap_done
