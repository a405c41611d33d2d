#!/bin/bash
# RSS of `moonsched run` across apiserver restarts (TAP): a real
# kube-apiserver v1.20.2 + etcd on loopback, SIGKILLed and started again on
# the same etcd and port RESTARTS times (default 20). After each restart a
# new pod must be bound (the scheduler reconnected its watches and its
# binder), then RSS is read (VmRSS, the lower of two readings 2 s apart).
# Passes when the RSS after the last restart is at most the highest after
# the first WARM restarts (default 3) plus RESTART_RSS_SLACK_KIB (default
# 1024): what a restart leaves behind adds up per restart, not per second,
# so the bound does not depend on the machine's speed. The figures are
# printed as comments. Stops everything it starts.
E2E_NAME=restarts
RESTARTS=${RESTARTS:-20}
WARM=${WARM:-3}
RESTART_RSS_SLACK_KIB=${RESTART_RSS_SLACK_KIB:-1024}
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

kube_api POST /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"capacity":{"cpu":"64","memory":"64Gi","pods":"110"},"allocatable":{"cpu":"64","memory":"64Gi","pods":"110"}}}' >/dev/null
mkpod() {   # name
    kube_api POST /api/v1/namespaces/default/pods "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"pause\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}" >/dev/null
}
bound() { [ "$(kube_api GET "/api/v1/namespaces/default/pods/$1" | jq -r '.spec.nodeName // empty')" = n1 ]; }
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
restarted=0 warm_max=0 last=0 failed=""
for i in $(seq 1 "$RESTARTS"); do
    if ! KUBE_BIN=$bin kube_restart_apiserver "$dir" >>"$dir/start.log" 2>&1; then failed="restart $i: the apiserver did not come back"; break; fi
    mkpod "p-$i"
    if ! wait_for 120 "bound p-$i"; then failed="restart $i: p-$i not bound"; break; fi
    kill -0 "$ms_pid" 2>/dev/null || { failed="restart $i: moonsched exited"; break; }
    restarted=$i
    last=$(rss)
    [ "$i" -le "$WARM" ] && [ "$last" -gt "$warm_max" ] && warm_max=$last
    echo "# $i  $last  $(threads_fds)"
done
check_eval "$RESTARTS apiserver restarts, a pod bound after each${failed:+ ($failed)}" "[ $restarted = $RESTARTS ]"
check_eval "RSS flat: ${last} KiB after restart $restarted, at most ${warm_max} KiB (after the first $WARM) + ${RESTART_RSS_SLACK_KIB} KiB" \
    "[ $restarted -gt $WARM ] && [ $last -le $((warm_max + RESTART_RSS_SLACK_KIB)) ]"
check "moonsched still running" kill -0 "$ms_pid"
tap_done
