#!/bin/bash
# deploy/descheduler on a real kube-apiserver v1.20.2 + etcd on loopback
# (TAP): kustomize builds every shape, the server validates them (apply -k
# and a server dry run), then `moonsched deschedule` runs with the
# arguments of the applied CronJob and Deployment as the ServiceAccount
# moonsched-descheduler (a TokenRequest token, not system:masters): a pass
# evicts, the interval takes its Lease, serves /metrics, posts reload
# Events, and no request anywhere answers 403. Then each rule of the
# ClusterRole is taken away in turn and a pass shows the 403 it causes.
# Stops everything it starts.
E2E_NAME=ddeploy
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

top=$(cd "$here/../.." && pwd)
shapes=$top/deploy/descheduler
kc() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }
ds_pid=""
stop_ds() {
    [ -n "$ds_pid" ] || return 0
    kill -9 "$ds_pid" 2>/dev/null
    wait "$ds_pid" 2>/dev/null
    ds_pid=""
}
trap 'stop_ds; cleanup' EXIT
tap_on_failure() {
    local f
    for f in "$dir"/ds-*.log; do [ -f "$f" ] && tail -n 6 "$f" | sed "s|^|# $(basename "$f"): |"; done
}

# --- the manifests ------------------------------------------------------------
for k in base cronjob cronjob-1.20 deployment; do
    check_eval "kubectl 1.20's kustomize builds deploy/descheduler/$k" "kc kustomize '$shapes/$k' >'$dir/k-$k.yaml'"
done
kc apply -k "$shapes/cronjob" >"$dir/apply-v1.out" 2>&1
check_eval "apply -k cronjob on 1.20: only the batch/v1 CronJob is refused" \
    "grep -q 'no matches for kind \"CronJob\" in version \"batch/v1\"' '$dir/apply-v1.out' &&
     [ \"\$(grep -c ' created\$' '$dir/apply-v1.out')\" = 5 ]"
check_eval "apply -k cronjob-1.20 and deployment succeed (server-side validation)" \
    "kc apply -k '$shapes/cronjob-1.20' >'$dir/apply.out' 2>&1 && kc apply -k '$shapes/deployment' >>'$dir/apply.out' 2>&1"
check_eval "server dry run of the same objects: all unchanged" \
    "kc apply -k '$shapes/cronjob-1.20' --dry-run=server >'$dir/dry.out' 2>&1 &&
     kc apply -k '$shapes/deployment' --dry-run=server >>'$dir/dry.out' 2>&1 &&
     [ \"\$(grep -c 'unchanged (server dry run)' '$dir/dry.out')\" = 16 ]"
as_pod() {   # the pod template (jq path) of an object, created as a Pod by a server dry run
    jq "{apiVersion: \"v1\", kind: \"Pod\", metadata: {name: \"template\", namespace: \"moonsched\"}, spec: $1}" |
        kc create --dry-run=server -o json -f - 2>>"$dir/template.err" | jq -e '.spec.serviceAccountName == "moonsched-descheduler"' >/dev/null
}
check_eval "the CronJob's and the Deployment's pod templates are admitted as Pods" \
    "kc -n moonsched get cronjob moonsched-descheduler -o json | as_pod .spec.jobTemplate.spec.template.spec &&
     kc -n moonsched get deployment moonsched-descheduler -o json | as_pod .spec.template.spec"

# --- the ServiceAccount's identity ---------------------------------------------------
token=$(echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
    kc create --raw /api/v1/namespaces/moonsched/serviceaccounts/moonsched-descheduler/token -f - | jq -r '.status.token // empty')
kube_kubeconfig "$dir" sa "$token"
sakc() { "$bin/kubectl" --kubeconfig "$dir/sa.kubeconfig" "$@"; }
check_eval "the token is system:serviceaccount:moonsched:moonsched-descheduler's" \
    "[ -n '$token' ] && cut -d. -f2 <<<'$token' | tr '_-' '/+' | base64 -d 2>/dev/null |
     grep -q '\"sub\":\"system:serviceaccount:moonsched:moonsched-descheduler\"'"
check_eval "... which may evict pods but not delete them, nor read secrets (not system:masters)" \
    "[ \"\$(sakc auth can-i create pods --subresource=eviction -n default)\" = yes ] &&
     [ \"\$(sakc auth can-i delete pods -n default)\" = no ] && [ \"\$(sakc auth can-i list secrets -A)\" = no ]"

# --- a cluster to deschedule ------------------------------------------------------
# A ReplicaSet's pod bound to a node: mkpod NAME node=NODE "${t_pod[@]}"
t_pod=(cpu=100m memory= labels='{"app":"t"}'
    metadata='{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"t","uid":"00000000-0000-0000-0000-000000000001","controller":true}]}')

mknode tainted cpu=4 memory=64Gi taints='[{"key":"x","effect":"NoSchedule"}]'
mknode free-1 cpu=4 memory=64Gi
mknode free-2 cpu=4 memory=64Gi
gone() { ! kc -n default get pod "$1" >/dev/null 2>&1 || kc -n default get pod "$1" -o json | jq -e '.metadata.deletionTimestamp != null' >/dev/null; }
# A budget of other pods: the pass lists budgets, none blocks these.
kc create -f - >/dev/null <<'PDB'
{"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget","metadata":{"name":"other","namespace":"default"},
 "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"other"}}}}
PDB
kc -n moonsched get configmap descheduler-policy -o json | jq -r '.data["policy.yaml"]' >"$dir/policy.yaml"

# The applied object's arguments, run here: the ServiceAccount's kubeconfig
# for --in-cluster, the ConfigMap's file for the mounted one.
args_of() {   # jq path of the container
    jq -r "$1.args[]" | sed -e "s|^--in-cluster\$|--kubeconfig=$dir/sa.kubeconfig|" \
        -e "s|^--policy-config-file=.*|--policy-config-file=$dir/policy.yaml|"
}
kc -n moonsched get cronjob moonsched-descheduler -o json | args_of .spec.jobTemplate.spec.template.spec.containers[0] >"$dir/cron.args"
forbidden() { grep -E 'status=403|HTTP 403|forbidden' "$1"; }
pass() {   # log-name: one pass with the CronJob's arguments
    mapfile -t a <"$dir/cron.args"
    "$ms" "${a[@]}" -v 4 >"$dir/ds-$1.out" 2>"$dir/ds-$1.log"
}

# --- the CronJob's pass ---------------------------------------------------------------
mkpod t-0 node=tainted "${t_pod[@]}"
pass cron
rc=$?
check_eval "the CronJob's pass as the ServiceAccount: exit 0" "[ $rc -eq 0 ]"
check_eval "... it evicts the pod on the tainted node (the Eviction API, policy/v1beta1)" \
    "grep -q 'msg=\"evicted pod\" pod=t-0 ' '$dir/ds-cron.log' && gone t-0"
check_eval "... it listed nodes, pods, budgets, namespaces and claims" \
    "grep -q 'path=/api/v1/nodes status=200' '$dir/ds-cron.log' && grep -q 'path=/api/v1/pods status=200' '$dir/ds-cron.log' &&
     grep -q 'path=/apis/policy/v1beta1/poddisruptionbudgets status=200' '$dir/ds-cron.log' &&
     grep -q 'path=/api/v1/namespaces status=200' '$dir/ds-cron.log' && grep -q 'path=./api/v1/persistentvolumeclaims?limit=500. status=200' '$dir/ds-cron.log'"
# A path with a query is logged quoted (path="...?limit=500"): '.' matches
# the quotes. 1.20 serves no CSIStorageCapacity in v1 or v1beta1: 404 on both, left out.
check_eval "... and the volume objects (PVs, StorageClasses, CSINodes, CSIDrivers; CSIStorageCapacities not served)" \
    "grep -q 'path=./api/v1/persistentvolumes?limit=500. status=200' '$dir/ds-cron.log' &&
     grep -q 'path=./apis/storage.k8s.io/v1/storageclasses?limit=500. status=200' '$dir/ds-cron.log' &&
     grep -q 'path=./apis/storage.k8s.io/v1/csinodes?limit=500. status=200' '$dir/ds-cron.log' &&
     grep -q 'path=./apis/storage.k8s.io/v1/csidrivers?limit=500. status=200' '$dir/ds-cron.log' &&
     grep -q 'path=./apis/storage.k8s.io/v1beta1/csistoragecapacities?limit=500. status=404' '$dir/ds-cron.log' &&
     ! grep -q 'volume objects not listed' '$dir/ds-cron.log'"
check_eval "... and no request answered 403" "! forbidden '$dir/ds-cron.log'"

# --- the Deployment's interval ------------------------------------------------------
port=$(kube_free_port)
kc -n moonsched get deployment moonsched-descheduler -o json | args_of .spec.template.spec.containers[0] |
    sed "s|^--secure-port=.*|--secure-port=$port|" >"$dir/deploy.args"
check_eval "the Deployment runs an interval under leader election on moonsched/descheduler" \
    "grep -qx -- --leader-elect '$dir/deploy.args' && grep -qx -- --leader-elect-resource-namespace=moonsched '$dir/deploy.args' &&
     grep -q -- '^--descheduling-interval=' '$dir/deploy.args'"
mapfile -t a <"$dir/deploy.args"
mkpod t-1 node=tainted "${t_pod[@]}"
POD_NAME=moonsched-descheduler-0 POD_NAMESPACE=moonsched "$ms" "${a[@]}" --bind-address=127.0.0.1 \
    --descheduling-interval=1s -v 4 >"$dir/ds-deploy.out" 2>"$dir/ds-deploy.log" &
ds_pid=$!
holder() { kc -n moonsched get lease descheduler -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
check_eval "it takes the Lease moonsched/descheduler" "wait_for 15 '[ -n \"\$(holder)\" ]'"
check_eval "its pass evicts the pod on the tainted node" "wait_for 10 'grep -q \"msg=.evicted pod. pod=t-1 \" \"\$dir/ds-deploy.log\"'"
metrics() {
    curl -sk -o "$dir/metrics.txt" -w '%{http_code}' -H "Authorization: Bearer $(cat "$KUBE_DIR/admin.token")" \
        "https://127.0.0.1:$port/metrics"
}
check_eval "/metrics over HTTPS (a TokenReview and a SubjectAccessReview as the ServiceAccount): 200" \
    "[ \"\$(metrics)\" = 200 ] && grep -q '^descheduler_pods_evicted_total{' '$dir/metrics.txt'"
printf 'apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles: [{name: broken, plugins: {deschedule: {enabled: [NoSuchPlugin]}}}]\n' \
    >"$dir/policy.yaml"
events() { kc -n moonsched get events --field-selector "reason=$1" -o json | jq -r '.items[].message'; }
check_eval "a broken policy edit: a PolicyReloadFailed Event about the pod, posted" \
    "wait_for 10 'events PolicyReloadFailed | grep -q \"the running version stays\"'"
kill -TERM "$ds_pid"
wait "$ds_pid"
rc=$?
ds_pid=""
check_eval "SIGTERM: exit 0, the Lease released" "[ $rc -eq 0 ] && wait_for 5 '[ -z \"\$(holder)\" ]'"
check_eval "... and no request of the interval answered 403" \
    "grep -q 'leases/descheduler status=200' '$dir/ds-deploy.log' && ! forbidden '$dir/ds-deploy.log'"
kc -n moonsched get configmap descheduler-policy -o json | jq -r '.data["policy.yaml"]' >"$dir/policy.yaml"

# --- each rule of the ClusterRole is needed ----------------------------------------------
drop_rule() {   # jq select() condition matching the rule to drop
    kc get clusterrole moonsched-descheduler -o json | jq "del(.metadata.resourceVersion) | .rules |= map(select(($1) | not))" |
        kc replace -f - >/dev/null
}
drop_resource() {   # resource: taken out of the rule that grants it
    kc get clusterrole moonsched-descheduler -o json |
        jq --arg r "$1" 'del(.metadata.resourceVersion) | .rules |= map(.resources -= [$r] | select(.resources | length > 0))' |
        kc replace -f - >/dev/null
}
restore() { kc apply -k "$shapes/cronjob-1.20" >/dev/null; }
n_pod=2
needed() {   # what, jq condition, the 403 to see
    mkpod "t-$n_pod-a" node=tainted "${t_pod[@]}"
    "${drop:-drop_rule}" "$2"
    check_eval "without the rule for $1: $3 answers 403" \
        "wait_for 10 'pass drop-$n_pod; grep -q \"$3.*403\" \"\$dir/ds-drop-$n_pod.log\"'"
    restore
    # A pod to evict once the rule is back, whatever became of the first.
    mkpod "t-$n_pod" node=tainted "${t_pod[@]}"
    check_eval "... restored: the pass evicts again, no 403" \
        "wait_for 10 'pass back-$n_pod; grep -q \"msg=.evicted pod. pod=t-$n_pod \" \"\$dir/ds-back-$n_pod.log\" && ! forbidden \"\$dir/ds-back-$n_pod.log\"'"
    n_pod=$((n_pod + 1))
}
needed "nodes and pods" '.resources | index("nodes")' 'path=/api/v1/nodes status='
needed "budgets" '.resources == ["poddisruptionbudgets"]' 'path=/apis/policy/v1beta1/poddisruptionbudgets status='
check_eval "... a pass without budgets says so" \
    "grep -q 'msg=\"poddisruptionbudgets not listed\".*status=403' \"\$dir\"/ds-drop-3.log"
needed "evictions" '.resources == ["pods/eviction"]' 'eviction status='
needed "namespaces and claims" '.resources | index("namespaces")' 'path=/api/v1/namespaces status='
for r in persistentvolumes storageclasses csinodes csidrivers csistoragecapacities; do
    case $r in persistentvolumes) p=/api/v1/$r ;; *) p=/apis/storage.k8s.io/v1/$r ;; esac
    drop=drop_resource needed "$r" "$r" "path=.$p?limit=500. status="
    check_eval "... a pass without $r says so" \
        "grep -q 'msg=\"volume objects not listed\" path=$p status=403' \"\$dir/ds-drop-$((n_pod - 1)).log\""
done
needed "priority classes" '.resources == ["priorityclasses"]' \
    'path=./apis/scheduling.k8s.io/v1/priorityclasses?limit=500. status='
check_eval "... a pass without them says so" \
    "grep -q 'msg=\"priority classes not listed\" path=/apis/scheduling.k8s.io/v1/priorityclasses status=403' \"\$dir/ds-drop-$((n_pod - 1)).log\""
needed "Services and ReplicationControllers" '.resources | index("services")' 'path=./api/v1/services?limit=500. status='
check_eval "... a pass without them says so, once per kind" \
    "[ \"\$(grep -c 'msg=\"workloads not listed\" path=/api/v1/' \"\$dir/ds-drop-$((n_pod - 1)).log\")\" = 2 ]"
tap_done
