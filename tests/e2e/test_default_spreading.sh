#!/bin/bash
# PodTopologySpread's default constraints with a Service, side by side with
# upstream kube-scheduler v1.20.2 on a real kube-apiserver (TAP): six
# nodes in three zones, zone-a's two four times larger, a Service
# selecting twelve pods. The resource scores alone would pack the pods
# into zone-a; the Service's selector spreads them. The same cluster is
# scheduled by `moonsched run`, then by kube-scheduler (each pod deleted
# in between), and by `moonsched simulate` from
# tests/cli/data/spread-service*.yaml: the zone and node counts must
# agree. Stops everything it starts.
E2E_NAME=spreading
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

ZONE=topology.kubernetes.io/zone
D=$here/../cli/data

for i in 1 2 3 4 5 6; do
    z=$(echo a a b b c c | cut -d' ' -f"$i")
    cpu=8
    [ "$z" = a ] && cpu=32
    mknode "n$i" cpu=$cpu memory=32Gi \
        labels="{\"kubernetes.io/hostname\":\"n$i\",\"$ZONE\":\"zone-$z\"}"
done
kube_api POST /api/v1/namespaces/default/services \
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}' |
    jq -e .metadata.uid >/dev/null || echo "# could not create the Service"

mkpods() { local i; for i in $(seq 1 12); do mkpod "web-$i" cpu=500m memory=512Mi labels='{"app":"web"}'; done; }
bound() { kube_api GET '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb' |
    jq '[.items[] | select((.spec.nodeName // "") != "")] | length'; }
# "zone counts; node counts" of the web pods, as test_simulate.sh prints them
counts() {
    kube_api GET '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb' | jq -r '.items[].spec.nodeName // empty' |
        sed 's/^n//' | awk '{ z[int(($1 - 1) / 2)]++; n[$1]++ }
            END { printf "%d/%d/%d; %d/%d/%d/%d/%d/%d", z[0], z[1], z[2], n[1], n[2], n[3], n[4], n[5], n[6] }'
}
delete_pods() {
    local i
    for i in $(seq 1 12); do
        kube_api DELETE "/api/v1/namespaces/default/pods/web-$i" '{"gracePeriodSeconds":0}' >/dev/null
    done
    wait_for 20 '[ "$(kube_api GET "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb" | jq ".items | length")" = 0 ]'
}

# --- moonsched run ------------------------------------------------------------
start_ms
check_eval "the Services informer synced (system:kube-scheduler may list them)" \
    "wait_for 20 'grep -q \"msg=\\\"informer synced\\\" resource=services\" \"\$dir/ms.log\"'"
mkpods
check_eval "moonsched bound the 12 pods" "wait_for 30 '[ \"\$(bound)\" = 12 ]'"
ms_counts=$(counts)
check_eval "moonsched: 4/4/4 over the zones, 2 per node (got $ms_counts)" "[ '$ms_counts' = '4/4/4; 2/2/2/2/2/2' ]"
check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"
delete_pods

# --- kube-scheduler -----------------------------------------------------------
start_ks
mkpods
check_eval "kube-scheduler bound the 12 pods" "wait_for 30 '[ \"\$(bound)\" = 12 ]'"
ks_counts=$(counts)
stop_ks
check_eval "kube-scheduler and moonsched agree (kube-scheduler: $ks_counts, moonsched: $ms_counts)" \
    "[ '$ks_counts' = '$ms_counts' ]"

# --- moonsched simulate on the same cluster -------------------------------------
sim_counts=$("$ms" simulate --cluster "$D/spread-service.yaml" "$D/spread-service-svc.yaml" |
    sed -n 's/^default\/web-[0-9]* -> n\([1-6]\) .*/\1/p' |
    awk '{ z[int(($1 - 1) / 2)]++; n[$1]++ }
        END { printf "%d/%d/%d; %d/%d/%d/%d/%d/%d", z[0], z[1], z[2], n[1], n[2], n[3], n[4], n[5], n[6] }')
check_eval "simulate predicts the same (got $sim_counts)" "[ '$sim_counts' = '$ks_counts' ]"

tap_done
