#!/bin/bash
# The soak (`make soak`, docs/reliability.md): `moonsched run` for
# SOAK_MINUTES (default 30; or SOAK_SECONDS) against a real kube-apiserver
# v1.20.2 + etcd on loopback under continuous churn (tests/e2e/soak.py:
# pods created and deleted, a node added, removed, cordoned or tainted every
# SOAK_NODE_EVERY s (10), the policy file replaced by a good or a broken
# version in turn every SOAK_POLICY_EVERY s (30)), the API server SIGKILLed
# and started again on the same etcd and port half-way through.
#
# Every SOAK_INTERVAL seconds (default 60) one line: the scheduler's RSS
# (the lower of two readings 2 s apart), open file descriptors and threads, pods bound and pending, nodes, policy
# reloads. At the end (TAP; the exit status is non-zero on any failure):
# the process is alive after every sample; RSS, descriptors and threads are
# flat: the highest of the last 10 samples (the last third when there are
# fewer than 30) is at most the highest of the 3 samples after the warm-up
# (the first 5 samples, or the first sixth of a shorter run) plus
# SOAK_RSS_SLACK_KIB (default 8192), SOAK_FD_SLACK (default 4) and
# SOAK_THREAD_SLACK (default 1); once the churn stops, within 90 s no
# pending pod fits a node and no node's bound pods exceed its allocatable
# (checked every sample too); every policy version written was swapped in
# or refused, as it was good or broken. Stops everything it starts.
E2E_NAME=soak
SOAK_MINUTES=${SOAK_MINUTES:-30}
SOAK_INTERVAL=${SOAK_INTERVAL:-60}
SOAK_RSS_SLACK_KIB=${SOAK_RSS_SLACK_KIB:-8192}
SOAK_FD_SLACK=${SOAK_FD_SLACK:-4}
SOAK_THREAD_SLACK=${SOAK_THREAD_SLACK:-1}
# Asked for by name (`make soak`): without an API server that is a failure,
# not the skip of the suites.
kube=${KUBE_BIN:-${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/kube-1.20.2/bin}
if [ ! -x "$kube/kube-apiserver" ] || ! command -v etcd >/dev/null 2>&1; then
    printf 'not ok 1 - kube-apiserver and etcd (tests/e2e/build-kube.sh)\n1..1\n'
    exit 1
fi
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

api() { python3 "$here/soak.py" "$KUBE_URL" "$dir/ca.crt" "$(cat "$dir/admin.token")" "$@"; }
mport=$(kube_free_port)
metric() { curl -s "http://127.0.0.1:$mport/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
reloads() { metric "moonsched_policy_reloads_total{plugin=\"lua:soak\",profile=\"default-scheduler\",result=\"$1\"}"; }
status_field() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$ms_pid/status"; }
churn_pid=""
soak_cleanup() {
    touch "$dir/stop"
    if [ -n "$churn_pid" ]; then kill "$churn_pid" 2>/dev/null; wait "$churn_pid" 2>/dev/null; fi
    cleanup
}
trap soak_cleanup EXIT

api policy "$dir" 0
seconds=${SOAK_SECONDS:-$((SOAK_MINUTES * 60))}
api churn "$dir" "$seconds" "${SOAK_NODE_EVERY:-10}" "${SOAK_POLICY_EVERY:-30}" >"$dir/churn.log" 2>&1 &
churn_pid=$!
"$ms" run --kubeconfig "$dir/scheduler.kubeconfig" --secure-port=0 --leader-elect=false \
    --metrics-bind-address "127.0.0.1:$mport" --plain-metrics --policy "$dir/soak.lua" >>"$dir/ms.log" 2>&1 &
ms_pid=$!
echo "# $seconds s, SOAK_INTERVAL=$SOAK_INTERVAL moonsched pid $ms_pid, log $dir/ms.log"
echo "# sample  elapsed_s  rss_kib  fds  threads  bound  pending  nodes  reloads_ok  reloads_refused"

start=$SECONDS
samples=$(((seconds + SOAK_INTERVAL - 1) / SOAK_INTERVAL))
restarted=0 alive=1 overcommit=0
rss=() fds=() threads=()
for ((i = 1; i <= samples; i++)); do
    while [ $((SECONDS - start)) -lt $((i * SOAK_INTERVAL)) ]; do
        sleep 1
        if [ "$restarted" = 0 ] && [ $((SECONDS - start)) -ge $((seconds / 2)) ]; then
            restarted=1
            t0=$SECONDS
            # (same etcd and port: the kubeconfigs keep working)
            if KUBE_BIN=$bin kube_restart_apiserver "$dir" >>"$dir/start.log" 2>&1; then restarted=2; fi
            echo "# the API server SIGKILLed and started again on the same etcd: ready after $((SECONDS - t0)) s"
        fi
    done
    if ! kill -0 "$ms_pid" 2>/dev/null; then alive=0; break; fi
    # The lower of two readings 2 s apart: a policy version being loaded may
    # hold up to its memory cap (64 MiB) for a moment; what stays counts.
    r1=$(status_field VmRSS)
    sleep 2
    r2=$(status_field VmRSS)
    rss+=("$((r1 < r2 ? r1 : r2))") threads+=("$(status_field Threads)")
    fds+=("$(find "/proc/$ms_pid/fd" -mindepth 1 -maxdepth 1 | wc -l)")
    read -r bound pending nodes < <(api count)
    printf '# %6d %10d %8d %4d %8d %6s %8s %6s %11s %16s\n' "$i" $((SECONDS - start)) "${rss[-1]}" \
        "${fds[-1]}" "${threads[-1]}" "$bound" "$pending" "$nodes" "$(reloads ok)" "$(reloads refused)"
    if ! api check >"$dir/check.txt"; then
        grep -q overcommitted "$dir/check.txt" && overcommit=$((overcommit + 1))
    fi
done
touch "$dir/stop"
wait "$churn_pid"
churn_pid=""

check_eval "moonsched stayed alive through $samples samples" '[ "$alive" = 1 ] && kill -0 "$ms_pid" 2>/dev/null'
check_eval "the API server was SIGKILLed and started again half-way" '[ "$restarted" = 2 ]'
check_eval "no sample found a node overcommitted" '[ "$overcommit" = 0 ]'
echo "# churn: $(cat "$dir/churn.json")"

# Flat: the last window's highest against the highest just after warm-up.
flat() {   # name slack values...
    local name=$1 slack=$2
    shift 2
    local v=("$@") n=$# warm base_max=0 end_max=0 w k
    warm=$((n / 6 < 5 ? n / 6 : 5))
    w=$((n >= 30 ? 10 : n / 3))
    [ "$w" -ge 1 ] || w=1
    for ((k = warm; k < warm + 3 && k < n; k++)); do [ "${v[k]}" -gt "$base_max" ] && base_max=${v[k]}; done
    for ((k = n - w; k < n; k++)); do [ "${v[k]}" -gt "$end_max" ] && end_max=${v[k]}; done
    echo "# $name: after warm-up (samples $((warm + 1))-$((warm + 3))) max $base_max, last $w samples max $end_max, slack $slack"
    [ "$end_max" -le $((base_max + slack)) ]
}
if [ "${#rss[@]}" -ge 3 ]; then
    check_eval "RSS flat (KiB)" 'flat rss "$SOAK_RSS_SLACK_KIB" "${rss[@]}"'
    check_eval "open file descriptors flat" 'flat fds "$SOAK_FD_SLACK" "${fds[@]}"'
    check_eval "threads flat" 'flat threads "$SOAK_THREAD_SLACK" "${threads[@]}"'
else
    not_ok "at least 3 samples to judge RSS, descriptors and threads (got ${#rss[@]})"
fi

t0=$SECONDS
check_eval "once the churn stops, no pending pod fits a node and none is overcommitted" \
    "WAIT_POLL=5 wait_for 90 'api check >\"\$dir/check.txt\"'"
sed -n '1,20p' "$dir/check.txt"
echo "# settled after $((SECONDS - t0)) s; bound pending nodes: $(api count)"
good=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["policy_good"])' "$dir/churn.json")
broken=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["policy_broken"])' "$dir/churn.json")
check_eval "every policy version written was swapped in ($good good) or refused ($broken broken)" \
    "wait_for 10 '[ \"\$(reloads ok)\" = $good ] && [ \"\$(reloads refused)\" = $broken ]'"
echo "# reloads: ok $(reloads ok), refused $(reloads refused)"
echo "# schedule attempts: $(curl -s "http://127.0.0.1:$mport/metrics" | awk '/^scheduler_schedule_attempts_total/ { printf "%s ", $0 }')"
# What the scheduler complained about, by message (refused reloads are the
# broken versions).
echo "# log: $(grep -c 'level=error' "$dir/ms.log") error lines, $(grep -c 'level=warn' "$dir/ms.log") warnings:"
grep -E 'level=(error|warn)' "$dir/ms.log" | sed -n 's/.* msg=\("[^"]*"\|[^ ]*\).*/\1/p' | sort | uniq -c | sort -rn | head -n 8 | sed 's/^/#   /'
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"
tap_done
