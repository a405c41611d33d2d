#!/bin/sh
# `moonsched run` and `moonsched snapshot` with Dynamic Resource
# Allocation, against tests/cli/dra_api_server.mjs on 127.0.0.1: a
# scripted API server that stands for a 1.34 one serving resource.k8s.io/v1
# (the 1.20 kube-apiserver the end-to-end suites build does not serve the
# group; tests/e2e/test_run_dra.sh covers that side). run watches the DRA
# objects, allocates the claim in Reserve, and PreBind adds upstream's
# finalizer to the claim, then writes its status.allocation and
# status.reservedFor, each with the resourceVersion it has; the server
# answers the first write 409 (another writer changed the claim), run
# reads the claim again and writes anew, and binds the pod once its
# informer shows the claim reserved for it. snapshot lists the four
# kinds, and simulate reads them back. deschedule's pass lists the
# workloads; with them forbidden (403), snapshot and deschedule go on
# without them. TAP output. B: the build directory
# (default: build).
. tests/lib/cli.sh

tap_need "$M"
if ! command -v node >/dev/null 2>&1; then
    skip "the scripted API server runs" "node is not installed"
    tap_done
    exit
fi
mkdir "$T/api"
node tests/cli/dra_api_server.mjs "$T/api" 2>"$T/server.err" &
srv=$!
stop_at_exit "$srv"
i=0
while [ ! -s "$T/api/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
check "the scripted API server listens" test -s "$T/api/port"
port=$(cat "$T/api/port")
cat >"$T/kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:$port"}}]
users: [{name: u, user: {}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
YAML

# --- snapshot, and simulate on it ----------------------------------------
"$M" snapshot --kubeconfig "$T/kubeconfig" -o "$T/snap.json" 2>"$T/snap.err"
check "snapshot lists the DRA kinds: a DeviceClass, a ResourceSlice, a ResourceClaim" \
    sh -c "jq -r '.items[].kind' '$T/snap.json' | sort | uniq -c | tr -s ' ' | grep -c -e '1 DeviceClass' -e '1 ResourceSlice' -e '1 ResourceClaim' | grep -qx 3"
check "snapshot: their apiVersion is resource.k8s.io/v1" \
    sh -c "jq -e '[.items[] | select(.kind == \"ResourceClaim\" or .kind == \"ResourceSlice\" or .kind == \"DeviceClass\") | .apiVersion] == [\"resource.k8s.io/v1\", \"resource.k8s.io/v1\", \"resource.k8s.io/v1\"]' '$T/snap.json' >/dev/null"
"$M" simulate --cluster "$T/snap.json" >"$T/sim.out" 2>&1
check "simulate reads them back: the pod gets gpu-0 on n1" \
    has_line "$T/sim.out" "ml/gpu-job -> n1  (not scored: feasible 1/1)  devices: gpu=gpu.example.com/n1/gpu-0"

# --- run -------------------------------------------------------------------
: >"$T/api/requests"
"$M" run --kubeconfig "$T/kubeconfig" --secure-port=0 --leader-elect=false -v 4 >"$T/ms.log" 2>&1 &
ms=$!
stop_at_exit "$ms"
i=0
while ! grep -q 'ml/gpu-job' "$T/api/binds" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
check "run binds the pod to n1" has_line "$T/api/binds" "ml/gpu-job n1"
check "the DRA informers listed and watched the four kinds" \
    sh -c "for r in deviceclasses resourceslices resourceclaims resourceclaimtemplates; do
             grep -q \"^GET /apis/resource.k8s.io/v1/\$r?limit=\" '$T/api/requests' &&
             grep -q \"^GET /apis/resource.k8s.io/v1/\$r?watch=1\" '$T/api/requests' || exit 1; done"
check "the claim's finalizer refused (409), a GET, the finalizer again, the status, then the binding" \
    sh -c "grep -e '^PATCH /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu' \
                -e '^GET /apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu\$' \
                -e '^POST /api/v1/namespaces/ml/pods/gpu-job/binding' '$T/api/requests' |
           sed 's|^PATCH [^ ]*/status\$|S|; s|^PATCH .*|F|; s|^GET .*|G|; s|^POST .*|B|' | tr -d '\n' | grep -qx FGFSB"
sed -n 1p "$T/api/claim-patches" >"$T/p1.json" 2>/dev/null
sed -n 3p "$T/api/claim-patches" >"$T/p3.json" 2>/dev/null
check "three claim patches, nothing more" sh -c "[ \"\$(wc -l <'$T/api/claim-patches')\" = 3 ] && [ -s '$T/p3.json' ]"
rv_seen=$(jq -r '.items[] | select(.kind == "ResourceClaim") | .metadata.resourceVersion' "$T/snap.json")
check "the first patch (the finalizer) carries the resourceVersion run saw" \
    sh -c "[ -n '$rv_seen' ] && [ \"\$(jq -r .metadata.resourceVersion '$T/p1.json')\" = '$rv_seen' ] &&
           jq -e '.metadata.finalizers == [\"resource.kubernetes.io/delete-protection\"]' '$T/p1.json' >/dev/null"
check "the status patch carries a newer one (read after the conflict, then the finalizer's answer)" \
    sh -c "[ \"\$(jq -r .metadata.resourceVersion '$T/p3.json')\" -gt '$rv_seen' ]"
check "it writes the allocation: gpu-0 of pool n1, and a node selector on n1" \
    jq -e '.status.allocation.devices.results == [{"request":"gpu","driver":"gpu.example.com","pool":"n1","device":"gpu-0"}] and
           .status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0] == {"key":"metadata.name","operator":"In","values":["n1"]}' "$T/p3.json"
check "and the pod in reservedFor" \
    jq -e '.status.reservedFor == [{"resource":"pods","name":"gpu-job","uid":"uid-gpu-job"}]' "$T/p3.json"
"$M" snapshot --kubeconfig "$T/kubeconfig" -o "$T/after.json" 2>"$T/after.err"
check "the claim on the server now: the finalizer, allocated, reserved for the pod" \
    jq -e '.items[] | select(.kind == "ResourceClaim") | .metadata.finalizers == ["resource.kubernetes.io/delete-protection"] and
           .status.allocation.devices.results[0].device == "gpu-0" and .status.reservedFor[0].name == "gpu-job"' "$T/after.json"
check "run logged no error, no failed list or claim write" \
    sh -c "! grep -E 'level=error|msg=\"(list failed|binding claims failed)' '$T/ms.log'"
kill "$ms"
wait "$ms"
rc=$?
check "run exits 0 on SIGTERM" [ "$rc" = 0 ]

# --- deschedule lists the workloads ---------------------------------------------
: >"$T/api/requests"
"$M" deschedule --policy-config-file examples/descheduler-policy.yaml --kubeconfig "$T/kubeconfig" --dry-run \
    --secure-port=0 >"$T/desched.out" 2>"$T/desched.err"
check "deschedule --dry-run runs a pass" [ $? = 0 ]
check "its pass lists Services, ReplicationControllers, ReplicaSets and StatefulSets, as the scheduler watches them" \
    sh -c "for r in /api/v1/services /api/v1/replicationcontrollers /apis/apps/v1/replicasets /apis/apps/v1/statefulsets; do
             grep -q \"^GET \$r?limit=\" '$T/api/requests' || exit 1; done"

# --- a role that may not list the workloads -------------------------------------
mkdir "$T/api403"
FORBID=/api/v1/services,/api/v1/replicationcontrollers,/apis/apps/v1/replicasets,/apis/apps/v1/statefulsets \
    node tests/cli/dra_api_server.mjs "$T/api403" 2>"$T/server403.err" &
srv403=$!
stop_at_exit "$srv403"
i=0
while [ ! -s "$T/api403/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
sed "s|127.0.0.1:$port|127.0.0.1:$(cat "$T/api403/port")|" "$T/kubeconfig" >"$T/kubeconfig403"
"$M" snapshot --kubeconfig "$T/kubeconfig403" -o "$T/snap403.json" 2>"$T/snap403.err"
check "snapshot goes on when the workloads are forbidden (403), as run's informers do" [ $? = 0 ]
check "it says so once per kind" \
    sh -c "[ \"\$(grep -c '^moonsched: warning: /ap.* not listed (403), left out: ' '$T/snap403.err')\" = 4 ]"
check "and lists the rest: the node, the pod, the DRA kinds" \
    sh -c "jq -r '.items[].kind' '$T/snap403.json' | sort -u | tr '\n' ' ' | grep -qx 'DeviceClass Namespace Node Pod ResourceClaim ResourceSlice '"
"$M" deschedule --policy-config-file examples/descheduler-policy.yaml --kubeconfig "$T/kubeconfig403" --dry-run \
    --secure-port=0 >"$T/desched403.out" 2>"$T/desched403.err"
check "deschedule's pass goes on without them too" [ $? = 0 ]
check "and warns once per kind" sh -c "[ \"\$(grep -c 'workloads not listed' '$T/desched403.err')\" = 4 ]"

tap_done
