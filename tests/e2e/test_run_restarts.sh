#!/bin/bash
# RSS of `moonsched run` across apiserver restarts (TAP): a real
# kube-apiserver v1.20.2 + etcd on loopback, SIGKILLed and started again on
# the same etcd and port RESTARTS times (default 8; `make restarts`: 20), with NODES nodes
# (30) and PODS pods (1500) to list again each time. After each restart a
# new pod must be bound (the scheduler reconnected its watches and its
# binder), then RSS is read (VmRSS, the lower of two readings 2 s apart).
# Passes when the lowest of the readings after the last three restarts is
# at most the highest after the first WARM restarts (default 3) plus
# RESTART_RSS_SLACK_KIB (default 512): what a restart leaves behind adds
# up per restart, not per second, so the bound does not depend on the
# machine's speed. The figures are printed as comments. Stops everything
# it starts.
E2E_NAME=restarts
RESTARTS=${RESTARTS:-8}
WARM=${WARM:-3}
RESTART_RSS_SLACK_KIB=${RESTART_RSS_SLACK_KIB:-512}
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

# A cluster whose relist is a few MB of JSON: NODES nodes, PODS pods
# already bound to them (spread evenly), made over one keep-alive connection.
python3 - "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "${NODES:-30}" "${PODS:-1500}" <<'PY' >"$dir/populate.log" 2>&1
import http.client, json, ssl, sys
from urllib.parse import urlparse
url, ca, token, nodes, pods = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
u = urlparse(url)
c = http.client.HTTPSConnection(u.hostname, u.port, context=ssl.create_default_context(cafile=ca), timeout=30)
hdr = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
def post(path, body):
    c.request("POST", path, json.dumps(body), hdr)
    r = c.getresponse()
    r.read()
    if r.status != 201:
        sys.exit("%s: HTTP %d" % (path, r.status))
a = {"cpu": "64", "memory": "256Gi", "pods": "200"}
for i in range(nodes):
    post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": "n%d" % i, "labels": {"zone": "z%d" % (i % 3)}},
                           "status": {"capacity": a, "allocatable": a}})
for i in range(pods):
    post("/api/v1/namespaces/default/pods", {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "bound-%d" % i, "labels": {"app": "a%d" % (i % 50), "tier": "t%d" % (i % 3)}},
        "spec": {"nodeName": "n%d" % (i % nodes), "containers": [{"name": "c", "image": "pause",
                 "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}})
PY
check "a cluster of ${NODES:-30} nodes and ${PODS:-1500} bound pods" [ $? = 0 ]
bound() { [ -n "$(kube_api GET "/api/v1/namespaces/default/pods/$1" | jq -r '.spec.nodeName // empty')" ]; }
rss() {
    local a b
    a=$(awk '/^VmRSS/ { print $2 }' "/proc/$ms_pid/status" 2>/dev/null)
    sleep 2
    b=$(awk '/^VmRSS/ { print $2 }' "/proc/$ms_pid/status" 2>/dev/null)
    echo $((a < b ? a : b))
}
threads_fds() { echo "$(awk '/^Threads/ { print $2 }' "/proc/$ms_pid/status")  $(find "/proc/$ms_pid/fd" -mindepth 1 | wc -l)"; }

start_ms --leader-elect=false
mkpod p-0
check_eval "moonsched binds a pod" "wait_for 60 'bound p-0'"
echo "# restart  rss_kib  threads  fds"
echo "# 0  $(rss)  $(threads_fds)"
restarted=0 warm_max=0 last=0 broke="" tail_min=0
for i in $(seq 1 "$RESTARTS"); do
    if ! KUBE_BIN=$bin kube_restart_apiserver "$dir" >>"$dir/start.log" 2>&1; then broke="restart $i: the apiserver did not come back"; break; fi
    mkpod "p-$i"
    if ! wait_for 120 "bound p-$i"; then broke="restart $i: p-$i not bound"; break; fi
    kill -0 "$ms_pid" 2>/dev/null || { broke="restart $i: moonsched exited"; break; }
    restarted=$i
    last=$(rss)
    [ "$i" -le "$WARM" ] && [ "$last" -gt "$warm_max" ] && warm_max=$last
    if [ "$i" -gt $((RESTARTS - 3)) ] && { [ "$tail_min" = 0 ] || [ "$last" -lt "$tail_min" ]; }; then
        tail_min=$last
    fi
    echo "# $i  $last  $(threads_fds)"
done
check_eval "$RESTARTS apiserver restarts, a pod bound after each${broke:+ ($broke)}" "[ $restarted = $RESTARTS ]"
check_eval "RSS flat: ${tail_min} KiB after the last 3 restarts, at most ${warm_max} KiB (after the first $WARM) + ${RESTART_RSS_SLACK_KIB} KiB" \
    "[ $restarted = $RESTARTS ] && [ $restarted -gt $((WARM + 3)) ] && [ $tail_min -le $((warm_max + RESTART_RSS_SLACK_KIB)) ]"
check "moonsched still running" kill -0 "$ms_pid"
tap_done
