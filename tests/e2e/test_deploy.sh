#!/bin/bash
# deploy/ on a real kube-apiserver v1.20.2 + etcd on loopback (TAP):
# `kubectl apply -k` of the overlays, validated by the server; a token for
# the ServiceAccount from the TokenRequest API; moonsched run from the image
# (buildah run, chroot isolation, the host's network) with the Deployment's
# arguments and in-cluster configuration made of that token, the CA and the
# namespace file, and nothing else; upstream kube-scheduler beside it as the
# default scheduler. Then each rule of the RBAC is taken away in turn and
# the suite shows what breaks, and a policy is rolled out as docs/deploy.md
# says (an overlay on top, the ConfigMap volume updated as the kubelet
# does it). Stops everything it starts.
#
# The image is built from this tree (deploy/build-image.sh; its layers are
# cached, so an unchanged tree takes seconds); MOONSCHED_IMAGE names another
# one to use instead. Without podman and
# buildah (or with E2E_DEPLOY_RUNNER=binary) the binary runs instead, in a
# mount namespace where the token directory is bind-mounted at the
# service-account path; the checks it passes are counted as skipped.
E2E_NAME=deploy
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

top=$(cd "$here/../.." && pwd)
overlay=$top/deploy/overlays/second-scheduler
overlay_120=$top/deploy/overlays/second-scheduler-1.20
image=${MOONSCHED_IMAGE:-localhost/moonsched:latest}
kc() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }
api_port=${KUBE_URL##*:}

ks_pid=""
ctr=""
deploy_cleanup() {
    stop_sched KILL
    if [ -n "$ks_pid" ]; then kill "$ks_pid" 2>/dev/null; wait "$ks_pid" 2>/dev/null; fi
    [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1
    cleanup
}
trap deploy_cleanup EXIT

# --- the manifests ----------------------------------------------------------------
for k in base overlays/second-scheduler overlays/second-scheduler-1.20; do
    check_eval "kubectl 1.20's kustomize builds deploy/$k" "kc kustomize '$top/deploy/$k' >'$dir/k.yaml'"
done
# (the apiserver this suite starts is 1.20: no policy/v1 yet)
kc apply -k "$overlay" >"$dir/apply-v1.out" 2>&1
check_eval "apply -k second-scheduler on 1.20: only the policy/v1 PodDisruptionBudget is refused" \
    "grep -q 'no matches for kind \"PodDisruptionBudget\" in version \"policy/v1\"' '$dir/apply-v1.out' &&
     [ \"\$(grep -c ' created\$' '$dir/apply-v1.out')\" = 11 ]"
check_eval "apply -k second-scheduler-1.20 succeeds (server-side validation)" \
    "kc apply -k '$overlay_120' >'$dir/apply.out' 2>&1"
check_eval "server dry run of the same objects: all unchanged" \
    "kc apply -k '$overlay_120' --dry-run=server >'$dir/dry.out' 2>&1 &&
     [ \"\$(grep -c 'unchanged (server dry run)' '$dir/dry.out')\" = 12 ]"
check_eval "the Deployment's pod template is admitted as a Pod (priority class, security context)" \
    "kc -n moonsched get deployment moonsched -o json |
     jq '{apiVersion: \"v1\", kind: \"Pod\", metadata: {name: \"moonsched-template\", namespace: \"moonsched\"}, spec: .spec.template.spec}' |
     kc create --dry-run=server -o json -f - 2>'$dir/template.err' | jq -e '.spec.priority == 2000000000' >/dev/null"
check_eval "the server itself refuses a broken Deployment (replicas: -1, client validation off)" \
    "kc kustomize '$overlay_120' | sed 's/replicas: 2/replicas: -1/' |
     kc apply --dry-run=server --validate=false -f - 2>&1 | grep -q 'spec.replicas: Invalid value: -1'"

# --- in-cluster identity ------------------------------------------------------------
sa=$dir/serviceaccount
mkdir -p "$sa" "$dir/etc/config" "$dir/etc/policies"
mint_token() {
    echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
        kc create --raw /api/v1/namespaces/moonsched/serviceaccounts/moonsched/token -f - |
        jq -r '.status.token // empty'
}
mint_token >"$sa/token"
cp "$dir/ca.crt" "$sa/ca.crt"
printf moonsched >"$sa/namespace"
check_eval "TokenRequest gives a token for system:serviceaccount:moonsched:moonsched" \
    "[ -s '$sa/token' ] && cut -d. -f2 '$sa/token' | tr '_-' '/+' | base64 -d 2>/dev/null |
     grep -q '\"sub\":\"system:serviceaccount:moonsched:moonsched\"'"
# A ConfigMap volume as the kubelet writes it (its atomic writer): the
# keys in a fresh timestamped directory, `..data` switched to it by a
# rename, one link per key through `..data`.
project() {   # configmap, directory
    local ts json k
    ts=..$(date +%Y_%m_%d_%H_%M_%S.%N)
    json=$(kc -n moonsched get configmap "$1" -o json) || return 1
    mkdir -p "$2/$ts"
    for k in $(jq -r '.data // {} | keys[]' <<<"$json"); do
        jq -j --arg k "$k" '.data[$k]' <<<"$json" >"$2/$ts/$k"
        [ -L "$2/$k" ] || ln -s "..data/$k" "$2/$k"
    done
    chmod -R a+rX "$2"
    local old
    old=$(readlink "$2/..data" 2>/dev/null)
    ln -sfn "$ts" "$2/..data_tmp" && mv -T "$2/..data_tmp" "$2/..data"
    [ -n "$old" ] && rm -rf "${2:?}/$old"
    return 0
}
project moonsched-config "$dir/etc/config"
project moonsched-policies "$dir/etc/policies"
chmod -R a+rX "$sa" "$dir/etc"
mapfile -t deploy_args < <(kc -n moonsched get deployment moonsched -o json |
    jq -r '.spec.template.spec.containers[0].args[]')
check_eval "the Deployment runs: ${deploy_args[*]}" '[ "${deploy_args[0]}" = run ]'

# --- the image (or the binary) ---------------------------------------------------------
runner=binary
if [ "${E2E_DEPLOY_RUNNER:-image}" = image ] && command -v podman >/dev/null 2>&1 &&
   command -v buildah >/dev/null 2>&1; then
    # The image holds the tree under test: built every time unless one is
    # named, which podman's layer cache makes quick when nothing changed.
    # It is run by its ID: another tree's build may move the tag meanwhile.
    if [ -z "${MOONSCHED_IMAGE:-}" ]; then
        echo "# building $image (deploy/build-image.sh; layers cached in podman's storage)"
        t0=$SECONDS
        if IMAGE=$image IIDFILE=$dir/image.id sh "$top/deploy/build-image.sh" >"$dir/image.log" 2>&1; then
            ok "make image builds the image from this tree"
            image=$(cat "$dir/image.id")
            echo "# built in $((SECONDS - t0)) s: $image"
        else
            not_ok "make image builds the image from this tree" "$(tail -n 20 "$dir/image.log")"
            image=""   # (not whatever the tag names: an older build, another tree's)
        fi
    fi
    if [ -n "$image" ] && podman image exists "$image" && ctr=$(buildah from --pull=never "$image" 2>"$dir/buildah.log"); then
        runner=image
        label=$(podman image inspect "$image" --format '{{index .Labels "org.opencontainers.image.version"}}')
        echo "# image $image, version $label"
        check_eval "the binary's --version is the image's version label (moonsched v${label#v} (commit ...))" \
            "buildah run --isolation chroot '$ctr' -- moonsched --version 2>&1 | grep -Eqx 'moonsched v${label#v} \\(commit [0-9a-f]+(-dirty)?\\)'"
    fi
elif [ -z "${MOONSCHED_IMAGE:-}" ]; then
    skip "make image builds the image from this tree" "no podman and buildah, or E2E_DEPLOY_RUNNER=binary"
fi
if [ "$runner" != image ]; then
    # What follows is about the pod the Deployment runs. The binary in its
    # place shows whether it holds for this tree, not for the image: a
    # check that passes is counted as skipped, one that fails as failed.
    echo "# podman/buildah or the image unavailable: running $ms"
    check_eval() { if eval "$2"; then skip "$1" "$ms ran, not the image"; else not_ok "$1"; fi; }
fi

sched_pid=""
sched_log=""
# Starts moonsched with the Deployment's arguments, in-cluster, as the pod
# would run it (HTTPS on a free loopback port instead of every address's
# 10259, plain-HTTP metrics on another).
start_sched() {   # name (its log: $dir/NAME.log), extra arguments
    sched_log=$dir/$1.log
    ln -sfn "$sched_log" "$dir/ms.log"   # what the harness's not_ok shows
    shift
    metrics_port=$(kube_free_port)
    https_port=$(kube_free_port)
    local args=("${deploy_args[@]}" --metrics-bind-address="127.0.0.1:$metrics_port" --plain-metrics
                --bind-address=127.0.0.1 --secure-port="$https_port" -v 4 "$@")
    local env=(KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT="$api_port"
               POD_NAME=moonsched-test POD_NAMESPACE=moonsched)
    if [ "$runner" = image ]; then
        buildah run --isolation chroot "${env[@]/#/--env=}" \
            -v "$sa:/run/secrets/kubernetes.io/serviceaccount:ro" \
            -v "$dir/etc/config:/etc/moonsched/config:ro" \
            -v "$dir/etc/policies:/etc/moonsched/policies:ro" \
            "$ctr" -- /usr/bin/moonsched "${args[@]}" >"$sched_log" 2>&1 &
    else
        # A private mount namespace: a tmpfs over /run there holds the
        # service-account path, and /etc/moonsched is the test's files, at
        # the path the arguments and the configuration's policy files
        # name (an overlay on /etc makes the mount point without touching
        # the host's /etc).
        env "${env[@]}" unshare -m sh -c '
            set -e; sa=$1 etc=$2; shift 2
            mount --make-rprivate /
            mount -t tmpfs tmpfs /run
            mkdir -p /run/secrets/kubernetes.io/serviceaccount /run/etc/upper /run/etc/work
            mount --bind "$sa" /run/secrets/kubernetes.io/serviceaccount
            mount -t overlay overlay -o lowerdir=/etc,upperdir=/run/etc/upper,workdir=/run/etc/work /etc
            mkdir -p /etc/moonsched
            mount --bind "$etc" /etc/moonsched
            exec "$@"' sh "$sa" "$dir/etc" "$top/$ms" "${args[@]}" >"$sched_log" 2>&1 &
    fi
    sched_pid=$!
}
# The moonsched process itself: below buildah run's chroot helper.
sched_proc() {   # pid -> the moonsched process at or below it
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = moonsched ] && { echo "$1"; return 0; }
    local c
    for c in $(ps -o pid= --ppid "$1"); do sched_proc "$c" && return 0; done
    return 1
}
stop_sched() {   # [signal] -> moonsched's exit status
    [ -n "$sched_pid" ] || return 0
    local p=""
    # (buildah run may not have started it yet)
    wait_for 5 'p=$(sched_proc "$sched_pid")'
    if [ -n "$p" ]; then kill -"${1:-TERM}" "$p" 2>/dev/null; else kill -KILL "$sched_pid" 2>/dev/null; fi
    wait "$sched_pid" 2>/dev/null
    local rc=$?
    sched_pid=""
    return $rc
}
# as the kubelet probes: HTTPS, no token, the certificate not checked
health() { curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$https_port/$1"; }
# /metrics over HTTPS with a token (the ServiceAccount's own, allowed by
# the ClusterRole below)
secure_metrics() { curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$sa/token")" \
    "https://127.0.0.1:$https_port/metrics"; }
metric() { curl -s "http://127.0.0.1:$metrics_port/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# (the registry takes the counters at the scheduler's 200 ms tick)
metric_ge() { wait_for 5 "[ \"\$(metric '$1')\" -ge $2 ] 2>/dev/null"; }

# --- beside kube-scheduler ---------------------------------------------------------------
# The Scheduled event's reportingController (the pod's profile), or with
# a second argument its reportingInstance: who bound the pod.
bound_by() {
    kube_api GET /apis/events.k8s.io/v1/namespaces/default/events | jq -r --arg p "$1" --arg f "${2:-reportingController}" \
        '[.items[] | select(.reason == "Scheduled" and .regarding.name == $p) | .[$f]] | first // ""'
}
lease_holder() { kube_api GET "/apis/coordination.k8s.io/v1/namespaces/$1/leases/$2" | jq -r '.spec.holderIdentity // ""'; }

mknode n1 cpu=8 memory=16Gi
mknode n2 cpu=8 memory=16Gi
# (its insecure health port on a free one: 10251 may be another scheduler's)
ks_port=$(kube_free_port)
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nclientConnection: {kubeconfig: %s}\nleaderElection: {leaderElect: true}\nhealthzBindAddress: 127.0.0.1:%s\nmetricsBindAddress: 127.0.0.1:%s\n' \
    "$dir/scheduler.kubeconfig" "$ks_port" "$ks_port" >"$dir/kube-scheduler.yaml"
"$bin/kube-scheduler" --config "$dir/kube-scheduler.yaml" --port=0 --secure-port=0 -v=1 >"$dir/kube-scheduler.log" 2>&1 &
ks_pid=$!
start_sched beside
for i in 1 2 3; do mkpod "ms-$i" scheduler=moonsched; mkpod "ks-$i" scheduler=default-scheduler; done
all_bound() { local p; for p in "$@"; do [ -n "$(node_of "$p")" ] || return 1; done; }
check_eval "the pods of both schedulerNames are bound" "wait_for 30 'all_bound ms-1 ms-2 ms-3 ks-1 ks-2 ks-3'"
check_eval "moonsched bound schedulerName moonsched's pods (their Scheduled events)" \
    "wait_for 10 '[ \"\$(bound_by ms-1)\$(bound_by ms-2)\$(bound_by ms-3)\" = moonschedmoonschedmoonsched ]'"
check_eval "... its reportingInstance is the profile's name and the host name" \
    "case \$(bound_by ms-1 reportingInstance) in moonsched-?*) true ;; *) false ;; esac"
by_upstream() { local p b; for p in "$@"; do b=$(bound_by "$p"); [ -n "$b" ] && [ "$b" != moonsched ] || return 1; done; }
check_eval "kube-scheduler bound the others" "wait_for 10 'by_upstream ks-1 ks-2 ks-3'"
ms_identity=$(sed -n 's/.*msg="successfully acquired lease".* identity=\([^ ]*\).*/\1/p' "$sched_log" | head -n 1)
check_eval "moonsched holds its own Lease moonsched/moonsched ($ms_identity)" \
    "[ -n '$ms_identity' ] && [ \"\$(lease_holder moonsched moonsched)\" = '$ms_identity' ]"
check_eval "kube-scheduler holds kube-system/kube-scheduler, not moonsched" \
    "wait_for 10 'h=\$(lease_holder kube-system kube-scheduler); [ -n \"\$h\" ] && [ \"\$h\" != \"$ms_identity\" ]'"
check_eval "the LeaderElection event is on moonsched's Lease" \
    "kube_api GET /api/v1/namespaces/moonsched/events | jq -e '.items[] | select(.reason == \"LeaderElection\" and .involvedObject.kind == \"Lease\" and .involvedObject.name == \"moonsched\")' >/dev/null"
check_eval "the liveness and readiness probes' paths answer 200 (HTTPS, no token)" '[ "$(health healthz)" = 200 ] && [ "$(health readyz)" = 200 ]'
check_eval "/metrics over HTTPS: 403 without a token" '[ "$(health metrics)" = 403 ]'
mkpod ms-4 scheduler=moonsched
mkpod ks-4 scheduler=default-scheduler
check_eval "both keep scheduling their own pods" \
    "wait_for 20 '[ -n \"\$(node_of ms-4)\" ] && [ -n \"\$(node_of ks-4)\" ] && [ \"\$(bound_by ms-4)\" = moonsched ]'"
check_eval "no request of moonsched's was refused (403) with the full role" "! grep -q 'status=403' '$sched_log'"
check_eval "moonsched exits 0 on SIGTERM and releases its Lease" \
    "stop_sched TERM && [ -z \"\$(lease_holder moonsched moonsched)\" ]"

# --- least privilege: one rule less at a time ------------------------------------------
# Replaces the rules of a ClusterRole with those jq's filter keeps.
drop_rule() {   # clusterrole, jq select() condition matching the rule to drop
    kc get clusterrole "$1" -o json | jq "del(.metadata.resourceVersion) | .rules |= map(select(($2) | not))" |
        kc replace -f - >/dev/null
}
restore_rules() { kc apply -k "$overlay_120" >/dev/null; }

# informers: without list/watch on pods, nodes and namespaces nothing syncs.
drop_rule moonsched '.resources | index("pods") and index("nodes")'
start_sched lp-informers
mkpod lp-inf scheduler=moonsched
sleep 4
check_eval "without the informer rule: LIST answers 403, /readyz 503, nothing is bound" \
    "wait_for 20 'grep -q \"nodes?limit=100.* status=403\" \"$sched_log\"' && [ \"\$(health readyz)\" = 503 ] && [ -z \"\$(node_of lp-inf)\" ]"
stop_sched TERM
restore_rules

# PodDisruptionBudgets: scheduling waits for that informer too.
drop_rule moonsched '.resources == ["poddisruptionbudgets"]'
start_sched lp-pdb
mkpod lp-pdb scheduler=moonsched
sleep 4
check_eval "without the PodDisruptionBudget rule: 403 on their LIST, nothing is bound" \
    "wait_for 20 'grep -q \"poddisruptionbudgets?limit=100.* status=403\" \"$sched_log\"' && [ -z \"\$(node_of lp-pdb)\" ]"
stop_sched TERM
restore_rules

# Volumes: CSINodes (NodeVolumeLimits) are waited for like PDBs; the
# CSIDriver and CSIStorageCapacity informers would go on without theirs.
drop_rule moonsched '.apiGroups == ["storage.k8s.io"]'
start_sched lp-csinodes
mkpod lp-csi scheduler=moonsched
sleep 4
check_eval "without the storage.k8s.io rule: 403 on the CSINodes' LIST, nothing is bound" \
    "wait_for 20 'grep -q \"csinodes?limit=100.* status=403\" \"$sched_log\"' && [ -z \"\$(node_of lp-csi)\" ]"
stop_sched TERM
restore_rules

# Dynamic Resource Allocation: 1.20 serves no resource.k8s.io (its
# informers are refused and go on: nothing to show by scheduling), but
# RBAC rules name any group: each rule is checked by what the
# ServiceAccount may do, with it and without it, through a
# SubjectAccessReview (kubectl 1.20's auth can-i drops the group of a
# resource the server does not serve).
dra_user=system:serviceaccount:moonsched:moonsched
dra_can() {   # verb resource [subresource]: yes or no
    printf '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"%s","resourceAttributes":{"group":"resource.k8s.io","resource":"%s","subresource":"%s","verb":"%s","namespace":"%s"}}}' \
        "$dra_user" "$2" "${3:-}" "$1" "$([ "$2" = resourceclaims ] && echo ml)" |
        kc create -f - -o jsonpath='{.status.allowed}' 2>/dev/null | sed 's/^true$/yes/; s/^false$/no/'
}
check_eval "the DRA rules: list/watch of classes, slices and templates; get/list/watch/patch of claims; patch of their status, no update" \
    "[ \"\$(dra_can list deviceclasses)\$(dra_can watch resourceslices)\$(dra_can list resourceclaimtemplates)\" = yesyesyes ] &&
     [ \"\$(dra_can get resourceclaims)\$(dra_can watch resourceclaims)\$(dra_can patch resourceclaims)\$(dra_can patch resourceclaims status)\" = yesyesyesyes ] &&
     [ \"\$(dra_can update resourceclaims status)\$(dra_can update resourceclaims)\$(dra_can create resourceslices)\" = nonono ]"
drop_rule moonsched '.resources == ["deviceclasses", "resourceslices", "resourceclaimtemplates"]'
check_eval "without the DRA objects' rule: no list of classes, slices or templates; claims still readable" \
    "[ \"\$(dra_can list deviceclasses)\$(dra_can watch resourceslices)\$(dra_can list resourceclaimtemplates)\" = nonono ] &&
     [ \"\$(dra_can list resourceclaims)\" = yes ]"
restore_rules
drop_rule moonsched '.resources == ["resourceclaims"]'
check_eval "without the claims' rule: no get, list, watch or patch (the finalizer) of claims; their status still patched" \
    "[ \"\$(dra_can get resourceclaims)\$(dra_can list resourceclaims)\$(dra_can watch resourceclaims)\$(dra_can patch resourceclaims)\" = nononono ] &&
     [ \"\$(dra_can patch resourceclaims status)\" = yes ]"
restore_rules
drop_rule moonsched '.resources == ["resourceclaims/status"]'
check_eval "without the claims' status rule: no patch of the status; the claims still listed" \
    "[ \"\$(dra_can patch resourceclaims status)\" = no ] && [ \"\$(dra_can list resourceclaims)\" = yes ]"
restore_rules

# The default spreading's Services, ReplicationControllers, ReplicaSets and
# StatefulSets: list and watch, nothing more; each rule checked with and
# without it, as the DRA rules are.
sa_can() {   # group verb resource: yes or no
    printf '{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"%s","resourceAttributes":{"group":"%s","resource":"%s","verb":"%s","namespace":"default"}}}' \
        "$dra_user" "$1" "$3" "$2" |
        kc create -f - -o jsonpath='{.status.allowed}' 2>/dev/null | sed 's/^true$/yes/; s/^false$/no/'
}
check_eval "the default spreading's rules: list/watch of services, replicationcontrollers, replicasets, statefulsets; no get or update" \
    "[ \"\$(sa_can '' list services)\$(sa_can '' watch replicationcontrollers)\$(sa_can apps list replicasets)\$(sa_can apps watch statefulsets)\" = yesyesyesyes ] &&
     [ \"\$(sa_can '' get services)\$(sa_can apps update replicasets)\" = nono ]"
drop_rule moonsched '.resources == ["services", "replicationcontrollers"]'
check_eval "without the core rule: no list of services or replicationcontrollers; replicasets still listed" \
    "[ \"\$(sa_can '' list services)\$(sa_can '' list replicationcontrollers)\$(sa_can apps list replicasets)\" = nonoyes ]"
restore_rules
drop_rule moonsched '.resources == ["replicasets", "statefulsets"]'
check_eval "without the apps rule: no list of replicasets or statefulsets; services still listed" \
    "[ \"\$(sa_can apps list replicasets)\$(sa_can apps watch statefulsets)\$(sa_can '' list services)\" = nonoyes ]"
restore_rules

# PersistentVolumes, claims and StorageClasses: system:volume-scheduler.
kc delete clusterrolebinding moonsched:volume-scheduler >/dev/null
start_sched lp-volume-scheduler
mkpod lp-vs scheduler=moonsched
sleep 4
check_eval "without the binding to system:volume-scheduler: 403 on the PersistentVolumes' LIST, nothing is bound" \
    "wait_for 20 'grep -q \"persistentvolumes?limit=100.* status=403\" \"$sched_log\"' && [ -z \"\$(node_of lp-vs)\" ]"
stop_sched TERM
restore_rules

drop_rule moonsched '.resources == ["pods/binding"]'
start_sched lp-binding
mkpod lp-bind scheduler=moonsched
check_eval "without the binding rule: the bind answers 403, counted as failed, the pod stays pending" \
    "wait_for 15 'grep -q \"binding failed\" \"$sched_log\"' && grep -q 'binding.*status=403\\|status=403.*binding' '$sched_log' &&
     [ -z \"\$(node_of lp-bind)\" ] && metric_ge 'moonsched_bindings_total{result=\"failed\"}' 1"
stop_sched TERM
restore_rules

drop_rule moonsched '.resources == ["events"]'
start_sched lp-events
mkpod lp-ev scheduler=moonsched
check_eval "without the event rules: the pod is bound but its Scheduled event is refused (403)" \
    "wait_for 15 '[ -n \"\$(node_of lp-ev)\" ]' && wait_for 10 'grep -q \"events status=403\" \"$sched_log\"' &&
     [ -z \"\$(bound_by lp-ev)\" ] && metric_ge 'moonsched_events_total{result=\"failed\"}' 1"
stop_sched TERM
restore_rules

mkpod lp-huge scheduler=moonsched cpu=64
drop_rule moonsched '.resources == ["pods/status"]'
start_sched lp-status
check_eval "without the pods/status rule: no PodScheduled=False on an unschedulable pod (403)" \
    "wait_for 15 'grep -q \"pods/lp-huge/status status=403\" \"$sched_log\"' &&
     ! kube_api GET /api/v1/namespaces/default/pods/lp-huge | jq -e '.status.conditions[]? | select(.type == \"PodScheduled\")' >/dev/null"
stop_sched TERM
restore_rules

# A pod's FailedScheduling is one Event series: created at the first
# report, patched (its count) by a report 30 s or more later (the
# reporter's interval, upstream's). lp-huge fits nowhere; a deleted pod
# makes room, which sends it back to be tried again.
fs_events() {   # lp-huge's FailedScheduling Events (names)
    kube_api GET /apis/events.k8s.io/v1/namespaces/default/events |
        jq -r '.items[] | select(.reason == "FailedScheduling" and .regarding.name == "lp-huge") | .metadata.name' | sort
}
fs_before=$(fs_events)
new_fs_event() { comm -13 <(echo "$fs_before") <(fs_events) | head -n 1; }
series_count() { kube_api GET "/apis/events.k8s.io/v1/namespaces/default/events/$series_ev" | jq -r '.series.count // 1'; }
drop_rule moonsched '.resources == ["events"] and .verbs == ["patch"]'
mkpod lp-series scheduler=moonsched
start_sched lp-series
wait_for 15 '[ -n "$(new_fs_event)" ] && [ -n "$(node_of lp-series)" ]'
series_ev=$(new_fs_event)
sleep 31
kube_api DELETE "/api/v1/namespaces/default/pods/lp-series?gracePeriodSeconds=0" >/dev/null
check_eval "without the event series rule: the first FailedScheduling is created, its update 30 s later answers 403, the count stays" \
    "[ -n '$series_ev' ] && wait_for 15 'grep -q \"events/$series_ev status=403\" \"$sched_log\"' &&
     metric_ge 'moonsched_events_total{result=\"failed\"}' 1 &&
     [ \"\$(series_count)\" = 1 ]"
# The rule back (the server checks each request): the next update, 30 s
# after the refused one, goes through.
restore_rules
mkpod lp-series-2 scheduler=moonsched
wait_for 15 '[ -n "$(node_of lp-series-2)" ]'
sleep 31
kube_api DELETE "/api/v1/namespaces/default/pods/lp-series-2?gracePeriodSeconds=0" >/dev/null
check_eval "... with it back: the next update goes through, the same Event counts the reports (2 or more)" \
    "wait_for 15 '[ \"\$(series_count)\" -ge 2 ]'"
stop_sched TERM

# HTTPS: a token needs a TokenReview, a path a SubjectAccessReview. A
# ClusterRole that lets the ServiceAccount get /metrics shows both.
kc create clusterrole moonsched-test:metrics --verb=get --non-resource-url=/metrics >/dev/null
kc create clusterrolebinding moonsched-test:metrics --clusterrole=moonsched-test:metrics \
    --serviceaccount=moonsched:moonsched >/dev/null
start_sched lp-reviews-full
check_eval "with the full role: /metrics over HTTPS with a token allowed to get it answers 200" \
    "wait_for 15 '[ \"\$(health healthz)\" = 200 ]' && wait_for 10 '[ \"\$(secure_metrics)\" = 200 ]'"
stop_sched TERM
drop_rule moonsched '.resources == ["tokenreviews"]'
start_sched lp-tokenreviews
check_eval "without the TokenReview rule: a token is refused (401), probes without one still answer 200" \
    "wait_for 15 '[ \"\$(health healthz)\" = 200 ]' && [ \"\$(secure_metrics)\" = 401 ] &&
     wait_for 10 'grep -q \"tokenreviews?timeout=10s.* status=403\" \"$sched_log\"'"
stop_sched TERM
restore_rules
drop_rule moonsched '.resources == ["subjectaccessreviews"]'
start_sched lp-sar
check_eval "without the SubjectAccessReview rule: /metrics answers 500, the probes' paths 200" \
    "wait_for 15 '[ \"\$(health healthz)\" = 200 ]' && [ \"\$(secure_metrics)\" = 500 ] && [ \"\$(health readyz)\" != 500 ] &&
     wait_for 10 'grep -q \"subjectaccessreviews?timeout=10s.* status=403\" \"$sched_log\"'"
stop_sched TERM
restore_rules

drop_rule moonsched:leader-election '.resourceNames == ["moonsched"]'
start_sched lp-lease
mkpod lp-lease scheduler=moonsched
sleep 4
check_eval "without the Lease rule: its GET answers 403, moonsched never leads, nothing is bound" \
    "wait_for 20 'grep -q \"leases/moonsched status=403\" \"$sched_log\"' && ! grep -q 'successfully acquired lease' '$sched_log' &&
     [ \"\$(metric 'leader_election_master_status{name=\"moonsched\"}')\" = 0 ] && [ -z \"\$(node_of lp-lease)\" ]"
stop_sched TERM
restore_rules

# Preemption: a high-priority pod that fits nowhere needs a low one
# deleted. Two 6-cpu low pods take most of n1 and n2 (8 cpu each, the
# pods above use 100m apiece), then a 6-cpu high pod comes.
mkclass() { kube_api POST /apis/scheduling.k8s.io/v1/priorityclasses "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"$1\"},\"value\":$2}" >/dev/null; }
mkprio() {   # name priorityClassName cpu
    kube_api POST /api/v1/namespaces/default/pods "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"$1\"},\"spec\":{\"schedulerName\":\"moonsched\",\"priorityClassName\":\"$2\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\",\"resources\":{\"requests\":{\"cpu\":\"$3\",\"memory\":\"64Mi\"}}}]}}" >/dev/null
}
deleting() { kube_api GET "/api/v1/namespaces/default/pods/$1" | jq -r '.metadata.deletionTimestamp // ""'; }
mkclass lp-low 10
mkclass lp-high 1000
drop_rule moonsched '.resources == ["pods"] and .verbs == ["delete"]'
start_sched lp-delete
mkprio lp-low-1 lp-low 6
mkprio lp-low-2 lp-low 6
wait_for 15 'all_bound lp-low-1 lp-low-2'
mkprio lp-pre lp-high 6
check_eval "without the delete pods rule: the victim's DELETE answers 403, it stays, the preemptor stays pending" \
    "all_bound lp-low-1 lp-low-2 && wait_for 15 'grep -q \"msg=.victim not deleted.* path=/api/v1/namespaces/default/pods/lp-low-[12] status=403\" \"$sched_log\"' &&
     metric_ge 'moonsched_api_requests_total{code=\"403\"}' 1 &&
     [ -z \"\$(deleting lp-low-1)\$(deleting lp-low-2)\" ] && [ -z \"\$(node_of lp-pre)\" ]"
stop_sched TERM
restore_rules

start_sched restored
check_eval "the role restored: the pods left pending are bound by moonsched" \
    "wait_for 20 'all_bound lp-inf lp-pdb lp-csi lp-vs lp-bind lp-lease'"
# (no kubelet: a deleted pod stays Terminating, so the preemptor stays
# nominated; the victim's deletionTimestamp shows the DELETE went through)
check_eval "... and the preemptor's victim is deleted" \
    "wait_for 15 '[ -n \"\$(deleting lp-low-1)\$(deleting lp-low-2)\" ]'"
stop_sched TERM

# --- a policy rolled out through the ConfigMaps (docs/deploy.md) -------------------------
# An operator's overlay on top of ours: a configuration that enables a
# policy, and the policy file in the policies ConfigMap.
mine=$dir/my-moonsched
mkdir -p "$mine/policies"
cp "$top/policies/spread-by-label.lua" "$mine/policies/"
cat >"$mine/scheduler-config.yaml" <<'YAML'
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: true, resourceName: moonsched, resourceNamespace: moonsched}
profiles:
- schedulerName: moonsched
  plugins:
    multiPoint:
      enabled:
      - {name: "lua:spread", weight: 2}
  pluginConfig:
  - name: lua:spread
    args:
      file: /etc/moonsched/policies/spread-by-label.lua
      args: {key: topology.kubernetes.io/zone}
YAML
# (kustomize takes a base by a relative path only)
cat >"$mine/kustomization.yaml" <<YAML
bases:
- $(realpath --relative-to="$mine" "$overlay_120")
configMapGenerator:
- name: moonsched-config
  namespace: moonsched
  behavior: replace
  files: [scheduler-config.yaml]
- name: moonsched-policies
  namespace: moonsched
  behavior: merge
  files: [policies/spread-by-label.lua]
generatorOptions:
  disableNameSuffixHash: true
YAML
policy_events() {   # reason -> how many regard moonsched's pod
    kube_api GET /api/v1/namespaces/moonsched/events | jq --arg r "$1" \
        '[.items[] | select(.reason == $r and .involvedObject.kind == "Pod" and .involvedObject.name == "moonsched-test")] | length'
}
check_eval "an overlay on top adds the policy and the configuration that enables it" \
    "kc apply -k '$mine' >/dev/null && project moonsched-config '$dir/etc/config' && project moonsched-policies '$dir/etc/policies' &&
     [ -L '$dir/etc/policies/spread-by-label.lua' ]"
start_sched policy
mkpod pol-1 scheduler=moonsched
check_eval "restarted with it (a configuration is read at start), moonsched binds with the policy" \
    "wait_for 20 '[ \"\$(bound_by pol-1)\" = moonsched ]' && metric_ge 'moonsched_policy_calls_total{plugin=\"lua:spread\",profile=\"moonsched\"}' 1"
printf '\n-- a new version\n' >>"$mine/policies/spread-by-label.lua"
kc apply -k "$mine" >/dev/null
project moonsched-policies "$dir/etc/policies"
check_eval "a new version in the ConfigMap, projected as the kubelet does: reloaded, PolicyReloaded event" \
    "wait_for 15 '[ \"\$(policy_events PolicyReloaded)\" -ge 1 ]' && wait_for 10 'grep -q \"msg=.reloaded.\" \"$sched_log\"'"
printf 'this is not Lua\n' >>"$mine/policies/spread-by-label.lua"
kc apply -k "$mine" >/dev/null
project moonsched-policies "$dir/etc/policies"
mkpod pol-2 scheduler=moonsched
check_eval "a broken version: refused (PolicyReloadFailed), the running one keeps scheduling" \
    "wait_for 15 '[ \"\$(policy_events PolicyReloadFailed)\" -ge 1 ]' && wait_for 15 '[ \"\$(bound_by pol-2)\" = moonsched ]'"
check_eval "kube-scheduler kept running throughout" 'kill -0 "$ks_pid"'
check_eval "moonsched exits 0 on SIGTERM" "stop_sched TERM"

tap_done
