#!/bin/bash
# Volumes end to end (TAP): a real kube-apiserver v1.20.2 + etcd on
# loopback, the real PV controller (kube-controller-manager's
# persistentvolume-binder and pvc-protection controllers), upstream
# kube-scheduler from the same tree and `moonsched run`, side by side on
# the same scenarios. Each scheduler has its own namespace, its own three
# nodes (a `group` label its pods select) and its own PersistentVolumes,
# so their outcomes can be compared: each scenario writes one line per
# scheduler (node names without the group prefix) and the lines must be
# equal.
#
# moonsched runs with the permissions an operator gives it
# (deploy/base/rbac.yaml: the ServiceAccount's ClusterRole and its binding
# to system:volume-scheduler), not as an administrator: a missing
# permission fails the suite. Stops everything it starts.
#
# VOLUMES_GROUPS=ks runs upstream alone (VOLUMES_GROUPS=ms moonsched alone).
E2E_NAME=volumes
# shellcheck source=run-harness.sh
source "$(cd "$(dirname "$0")" && pwd)/run-harness.sh"

top=$(cd "$here/../.." && pwd)
groups=${VOLUMES_GROUPS:-ks ms}
kc() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }
prov_pid=""
trap 'if [ -n "$prov_pid" ]; then kill "$prov_pid" 2>/dev/null; wait "$prov_pid" 2>/dev/null; fi; cleanup' EXIT

HOST=kubernetes.io/hostname
ZONE=topology.kubernetes.io/zone
sched_of() { if [ "$1" = ks ]; then echo default-scheduler; else echo moonsched; fi; }

# --- objects ---------------------------------------------------------------------------
mkclass() {  # name provisioner bindingMode
    kube_api POST /apis/storage.k8s.io/v1/storageclasses "$(jq -n --arg n "$1" --arg p "$2" --arg m "$3" \
        '{apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: {name: $n}, provisioner: $p, volumeBindingMode: $m}')" >/dev/null
}
mkpvc() {    # group name class [volumeName [extra spec (JSON)]]
    kube_api POST "/api/v1/namespaces/$1/persistentvolumeclaims" "$(jq -n --arg n "$2" --arg c "$3" --arg v "${4:-}" \
        --argjson x "${5:-{\}}" '{apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: {name: $n},
          spec: ({accessModes: ["ReadWriteOnce"], storageClassName: $c, resources: {requests: {storage: "1Gi"}}}
                 + (if $v == "" then {} else {volumeName: $v} end) + $x)}')"
}
# A PersistentVolume: name, class, extra spec (JSON: source, nodeAffinity,
# claimRef), extra metadata (JSON)
mkpv() {
    kube_api POST /api/v1/persistentvolumes "$(jq -n --arg n "$1" --arg c "$2" --argjson s "${3:-{\}}" --argjson m "${4:-{\}}" \
        '{apiVersion: "v1", kind: "PersistentVolume", metadata: ({name: $n} + $m),
          spec: ({capacity: {storage: "1Gi"}, accessModes: ["ReadWriteOnce"], storageClassName: $c,
                  persistentVolumeReclaimPolicy: "Retain"} + $s)}')" >/dev/null
}
local_on() {  # node -> spec fields of a local volume there
    jq -nc --arg n "$1" '{local: {path: "/mnt/disk"}, nodeAffinity: {required: {nodeSelectorTerms:
        [{matchExpressions: [{key: "kubernetes.io/hostname", operator: "In", values: [$n]}]}]}}}'
}
vol_pod() {   # group name [claim...]: one volume per claim, on the group's nodes
    local g=$1 name=$2
    shift 2
    mkpod "$name" ns="$g" scheduler="$(sched_of "$g")" spec="$(jq -nc --arg g "$g" --args '{nodeSelector: {group: $g},
        volumes: [$ARGS.positional | to_entries[] | {name: "v\(.key)", persistentVolumeClaim: {claimName: .value}}]}' "$@")"
}

# --- what is observed -------------------------------------------------------------------
pod_json() { kube_api GET "/api/v1/namespaces/$1/pods/$2"; }
pvc_json() { kube_api GET "/api/v1/namespaces/$1/persistentvolumeclaims/$2"; }
# the pod's node without the group prefix ("-" when it has none)
node_in() { pod_json "$1" "$2" | jq -r --arg g "$1-" '(.spec.nodeName // "-") | ltrimstr($g)'; }
bound() { [ "$(node_in "$1" "$2")" != - ]; }
claim_of() {   # phase and volume of a claim, the volume without the group prefix
    pvc_json "$1" "$2" | jq -r --arg g "$1-" 'if .kind != "PersistentVolumeClaim" then "gone/-"
        else "\(.status.phase // "-")/\((.spec.volumeName // "-") | ltrimstr($g))" end'
}
claim_bound() { case $(claim_of "$1" "$2") in Bound/*) true ;; *) false ;; esac; }
# The PodScheduled=False message, reduced to the counts of what is about
# volumes. Left out, as they differ between versions: the node selector's
# wording, and the PostFilter part moonsched appends as upstream does from
# 1.23 (". preemption: 0/6 nodes are available: ..."). A PreFilter
# rejection reads "0/6 nodes are available: 6 <reason>" in 1.20 and
# "0/6 nodes are available: <reason>" in later releases and moonsched:
# why_pending_reason drops the count.
why_pending() {
    pod_json "$1" "$2" | jq -r '[.status.conditions[]? | select(.type == "PodScheduled" and .status == "False") | .message][0] // ""' |
        sed 's/\. preemption: .*//; s/^0\/[0-9]* nodes are available: //; s/\.$//' | tr ',' '\n' | sed 's/^ *//' |
        grep -iE 'volume|claim|disk|persistentvolume' | sort | paste -sd ';' -
}
why_pending_reason() { why_pending "$1" "$2" | sed 's/^[0-9]* //'; }
pending_with() {   # group pod text: PodScheduled=False mentions it
    why_pending "$1" "$2" | grep -qF -- "$3"
}
events_of() {   # group pod reason -> their messages
    kube_api GET "/api/v1/namespaces/$1/events" | jq -r --arg p "$2" --arg r "$3" \
        '.items[] | select(.involvedObject.name == $p and .reason == $r) | .message'
    kube_api GET "/apis/events.k8s.io/v1/namespaces/$1/events" | jq -r --arg p "$2" --arg r "$3" \
        '.items[] | select(.regarding.name == $p and .reason == $r) | .note'
}

# Each scenario's outcome per scheduler, compared at the end of the scenario.
outcome() {   # scenario group text
    printf '%s\n' "$3" >"$dir/outcome.$1.$2"
    echo "# $1 [$2]: $3"
}
compare() {   # scenario
    [ "$groups" = "ks ms" ] || return 0
    check_eval "$1: moonsched's outcome is upstream's ($(cat "$dir/outcome.$1.ks" 2>/dev/null))" \
        "cmp -s '$dir/outcome.$1.ks' '$dir/outcome.$1.ms'"
}
each() { local g; for g in $groups; do "$@" "$g"; done; }
all_groups() {   # predicate [args]: true when `predicate GROUP args` holds for every group
    local g f=$1
    shift
    for g in $groups; do "$f" "$g" "$@" || return 1; done
}
node_is() { [ "$(node_in "$1" "$2")" = "$3" ]; }     # group pod node
claim_is() { [ "$(claim_of "$1" "$2")" = "$3" ]; }   # group claim phase/volume
claims_bound() { local g=$1 c; shift; for c in "$@"; do claim_bound "$g" "$c" || return 1; done; }

# --- the cluster -----------------------------------------------------------------------
for g in $groups; do
    kube_api POST /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$g\"}}" >/dev/null
    mknode "$g-n1" cpu=8 memory=16Gi labels="{\"$HOST\":\"$g-n1\",\"$ZONE\":\"zone-a\",\"topology.kubernetes.io/region\":\"r1\",\"group\":\"$g\"}"
    mknode "$g-n2" cpu=8 memory=16Gi labels="{\"$HOST\":\"$g-n2\",\"$ZONE\":\"zone-a\",\"topology.kubernetes.io/region\":\"r1\",\"group\":\"$g\"}"
    mknode "$g-n3" cpu=8 memory=16Gi labels="{\"$HOST\":\"$g-n3\",\"$ZONE\":\"zone-b\",\"topology.kubernetes.io/region\":\"r1\",\"group\":\"$g\"}"
done
mkclass local-wffc kubernetes.io/no-provisioner WaitForFirstConsumer
mkclass immediate kubernetes.io/no-provisioner Immediate
# (the provisioner this suite plays below)
mkclass dyn-wffc example.com/harness WaitForFirstConsumer
# (a provisioner nobody plays: claims of this class wait for ever)
mkclass dyn-never example.com/nobody WaitForFirstConsumer

# The PV controller, and pvc-protection: it lifts the finalizer of a
# claim that is deleted while no scheduled pod uses it. (The PV
# controller's periodic sync every 2 s instead of 15: a claim created
# before its PV's event reached the controller waits for it.)
check "kube-controller-manager started (persistentvolume-binder,pvc-protection)" \
    start_kcm persistentvolume-binder,pvc-protection --pvclaimbinder-sync-period=2s
check_eval "the PV controller runs" \
    "wait_for 30 'grep -qs \"Starting persistent volume controller\" \"$dir/kcm.log\"'"

bind_timeout=20
vb_args="bindTimeoutSeconds: $bind_timeout"
if [[ " $groups " == *" ks "* ]]; then
    start_ks "$(printf 'profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: VolumeBinding\n    args: {%s}\n' "$vb_args")"
    check_eval "upstream kube-scheduler 1.20.2 started" \
        "wait_for 30 'grep -q \"Attempting to acquire\\|Starting Kubernetes Scheduler\\|serving\" \"$dir/kube-scheduler.log\"' && kill -0 $ks_pid"
fi
if [[ " $groups " == *" ms "* ]]; then
    # The ServiceAccount and its permissions exactly as deploy/ has them.
    kc apply -f "$top/deploy/base/namespace.yaml" -f "$top/deploy/base/serviceaccount.yaml" \
        -f "$top/deploy/base/rbac.yaml" >"$dir/rbac.out" 2>&1 || cat "$dir/rbac.out" | sed 's/^/# /'
    token=$(echo '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' |
        kc create --raw /api/v1/namespaces/moonsched/serviceaccounts/moonsched/token -f - | jq -r '.status.token // empty')
    check_eval "a token for system:serviceaccount:moonsched:moonsched (deploy/base/rbac.yaml)" '[ -n "$token" ]'
    kube_kubeconfig "$dir" moonsched-sa "$token"
    cat >"$dir/ms-config.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
- schedulerName: moonsched
  pluginConfig:
  - name: VolumeBinding
    args: {$vb_args}
YAML
    "$ms" run --kubeconfig "$dir/moonsched-sa.kubeconfig" --config "$dir/ms-config.yaml" --secure-port=0 \
        --metrics-bind-address=0 -v 4 >>"$dir/ms.log" 2>&1 &
    ms_pid=$!
    check_eval "moonsched's informers synced, volumes' included, with the ServiceAccount's permissions" \
        "wait_for 30 'grep -q \"informer synced\" \"$dir/ms.log\"' && kill -0 $ms_pid"
fi

# --- the harness plays an external provisioner ---------------------------------------------
# In a real cluster an external provisioner (a CSI driver's
# external-provisioner) watches claims of its class that the scheduler
# annotated with volume.kubernetes.io/selected-node and creates a volume
# reachable from that node. Here a loop plays it for class dyn-wffc: a PV
# with that node's affinity, pre-bound to the claim; the PV controller
# then binds the claim.
provisioner() {
    while :; do
        kube_api GET /api/v1/persistentvolumeclaims | jq -c '.items[] |
            select(.spec.storageClassName == "dyn-wffc" and (.spec.volumeName // "") == "" and
                   (.metadata.annotations["volume.kubernetes.io/selected-node"] // "") != "" and
                   (.metadata.deletionTimestamp // "") == "")' |
        while read -r c; do
            local ns name uid node
            ns=$(jq -r .metadata.namespace <<<"$c"); name=$(jq -r .metadata.name <<<"$c")
            uid=$(jq -r .metadata.uid <<<"$c")
            node=$(jq -r '.metadata.annotations["volume.kubernetes.io/selected-node"]' <<<"$c")
            mkpv "$ns-pvc-$uid" dyn-wffc "$(local_on "$node" | jq -c --arg ns "$ns" --arg n "$name" --arg u "$uid" \
                '. + {claimRef: {apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: $ns, name: $n, uid: $u}}')" \
                '{"annotations":{"pv.kubernetes.io/provisioned-by":"example.com/harness"}}'
        done
        sleep 0.3
    done
}
provisioner >"$dir/provisioner.log" 2>&1 &
prov_pid=$!

# === 1. local PVs, WaitForFirstConsumer (the headline) =====================================
# One local PV on n2; two pods share its claim: the first is placed where
# the PV is, the scheduler binds PV and claim, the PV controller completes
# it; the second follows the bound claim to n2.
for g in $groups; do
    mkpv "$g-local-n2" local-wffc "$(local_on "$g-n2")"
    mkpvc "$g" data local-wffc >/dev/null
    vol_pod "$g" local-1 data
done
check_eval "local WFFC: every scheduler placed its pod on the PV's node and the claim is Bound to it" \
    "wait_for 40 'all_groups node_is local-1 n2 && all_groups claim_is data Bound/local-n2'"
for g in $groups; do vol_pod "$g" local-2 data; done
check_eval "local WFFC: a second pod of the bound claim follows it to n2" \
    "wait_for 20 'all_groups node_is local-2 n2'"
for g in $groups; do
    outcome local "$g" "local-1 on $(node_in "$g" local-1), local-2 on $(node_in "$g" local-2), claim $(claim_of "$g" data), PV claimRef $(kube_api GET "/api/v1/persistentvolumes/$g-local-n2" | jq -r '.spec.claimRef.name // "-"')"
done
compare local

# === 2. two pods racing for one PV ==========================================================
for g in $groups; do
    mkpv "$g-race-n1" local-wffc "$(local_on "$g-n1")"
    mkpvc "$g" race-a local-wffc >/dev/null
    mkpvc "$g" race-b local-wffc >/dev/null
done
# (`wait` with pids: a bare wait would wait for the provisioner too)
pids=()
for g in $groups; do vol_pod "$g" race-a race-a & pids+=($!); vol_pod "$g" race-b race-b & pids+=($!); done
wait "${pids[@]}"
race_settled() {   # one bound with its claim, the other pending with a reason
    local a b
    a=$(node_in "$1" race-a); b=$(node_in "$1" race-b)
    if [ "$a" != - ]; then [ "$b" = - ] && claim_bound "$1" race-a && [ -n "$(why_pending "$1" race-b)" ]
    else [ "$b" != - ] && claim_bound "$1" race-b && [ -n "$(why_pending "$1" race-a)" ]; fi
}
check_eval "race: one pod bound (on n1, its claim Bound), the other pending with a reason" \
    "wait_for 40 'all_groups race_settled'"
sleep 2
for g in $groups; do
    if bound "$g" race-a; then w=race-a l=race-b; else w=race-b l=race-a; fi
    check_eval "race [$g]: still one pod bound, nothing bound twice (PV claimRef = $w's claim, $l's claim Pending)" \
        "! bound $g $l && [ \"\$(kube_api GET /api/v1/persistentvolumes/$g-race-n1 | jq -r .spec.claimRef.name)\" = $w ] &&
         [ \"\$(claim_of $g $l)\" = Pending/- ]"
    outcome race "$g" "winner on $(node_in "$g" "$w"), claim $(claim_of "$g" "$w"); loser: $(why_pending "$g" "$l")"
done
compare race

# === 3. zonal PVs: VolumeZone ================================================================
# PVs of a zonal disk (zone labels, no node affinity), pre-bound to their
# claims (no class: the PV controller binds them at once).
for g in $groups; do
    for z in zone-b zone-c; do
        mkpv "$g-disk-$z" "" "$(jq -nc --arg ns "$g" --arg n "zonal-$z" \
            '{gcePersistentDisk: {pdName: "disk"}, claimRef: {namespace: $ns, name: $n}}')" \
            "$(jq -nc --arg z "$z" '{labels: {"topology.kubernetes.io/zone": $z, "topology.kubernetes.io/region": "r1"}}')"
        mkpvc "$g" "zonal-$z" "" "$g-disk-$z" >/dev/null
    done
done
check_eval "zonal: the PV controller bound the pre-bound claims" \
    "wait_for 20 'all_groups claims_bound zonal-zone-b zonal-zone-c'"
for g in $groups; do vol_pod "$g" zonal-b zonal-zone-b; vol_pod "$g" zonal-c zonal-zone-c; done
check_eval "zonal: the pod of a zone-b disk is placed on zone-b's only node (n3)" \
    "wait_for 20 'all_groups node_is zonal-b n3'"
check_eval "zonal: the pod of a zone-c disk (no node there) is pending: \"3 node(s) had no available volume zone\"" \
    "wait_for 20 'all_groups pending_with zonal-c \"3 node(s) had no available volume zone\"'"
for g in $groups; do
    outcome zonal "$g" "zone-b pod on $(node_in "$g" zonal-b); zone-c pod: $(why_pending "$g" zonal-c)"
done
compare zonal

# === 4. an Immediate class with an unbound claim ============================================
# (each scheduler's claim selects its own PV by label: the PV controller
# would bind either)
for g in $groups; do
    mkpvc "$g" imm immediate "" "{\"selector\":{\"matchLabels\":{\"group\":\"$g\"}}}" >/dev/null
    vol_pod "$g" imm imm
done
check_eval "immediate: the pod of an unbound Immediate claim is pending: \"pod has unbound immediate PersistentVolumeClaims\"" \
    "wait_for 20 'all_groups pending_with imm \"pod has unbound immediate PersistentVolumeClaims\"'"
for g in $groups; do outcome immediate "$g" "$(why_pending_reason "$g" imm)"; done
compare immediate
# A matching PV appears: the PV controller binds the claim, and the
# claim's update sends the pod back to be scheduled.
for g in $groups; do mkpv "$g-imm-n3" immediate "$(local_on "$g-n3")" "{\"labels\":{\"group\":\"$g\"}}"; done
check_eval "immediate: once a PV appears and the PV controller binds the claim, the pod is placed on the PV's node" \
    "wait_for 40 'all_groups node_is imm n3'"
for g in $groups; do outcome immediate-later "$g" "pod on $(node_in "$g" imm), claim $(claim_of "$g" imm)"; done
compare immediate-later

# === 5. CSI attach limits from CSINode ====================================================
# No kubelet writes CSINode objects here: one per node by hand, one
# attachable volume of driver csi.example.com each. Four pods with a
# volume of that driver each: three nodes, one volume per node.
for g in $groups; do
    for nd in n1 n2 n3; do
        kube_api POST /apis/storage.k8s.io/v1/csinodes "$(jq -n --arg n "$g-$nd" '{apiVersion: "storage.k8s.io/v1", kind: "CSINode",
            metadata: {name: $n}, spec: {drivers: [{name: "csi.example.com", nodeID: $n, allocatable: {count: 1}}]}}')" >/dev/null
    done
    for i in 1 2 3 4; do
        mkpv "$g-csi-$i" "" "$(jq -nc --arg ns "$g" --arg n "csi-$i" --arg h "$g-csi-$i" \
            '{csi: {driver: "csi.example.com", volumeHandle: $h}, claimRef: {namespace: $ns, name: $n}}')"
        mkpvc "$g" "csi-$i" "" "$g-csi-$i" >/dev/null
    done
done
check_eval "csi: the PV controller bound the four claims of each scheduler" \
    "wait_for 20 'all_groups claims_bound csi-1 csi-2 csi-3 csi-4'"
# one at a time: which three are placed must not depend on a race
for i in 1 2 3 4; do
    for g in $groups; do vol_pod "$g" "csi-$i" "csi-$i"; done
    [ $i = 4 ] || wait_for 20 "all_groups bound csi-$i"
done
csi_nodes() { local i; for i in 1 2 3; do node_in "$1" "csi-$i"; done | sort | paste -sd, -; }
csi_spread() { [ "$(csi_nodes "$1")" = n1,n2,n3 ]; }
check_eval "csi: three pods on three different nodes (one attachable volume each)" \
    "wait_for 20 'all_groups csi_spread'"
check_eval "csi: the fourth is pending: \"3 node(s) exceed max volume count\"" \
    "wait_for 20 'all_groups pending_with csi-4 \"3 node(s) exceed max volume count\"'"
for g in $groups; do outcome csi "$g" "placed on $(csi_nodes "$g"); csi-4: $(why_pending "$g" csi-4)"; done
compare csi

# === 6. dynamic provisioning (the harness plays the provisioner) ===========================
for g in $groups; do mkpvc "$g" dyn dyn-wffc >/dev/null; vol_pod "$g" dyn dyn; done
dyn_ok() {   # the pod on the selected node, the claim Bound to a PV there
    local nd sel
    nd=$(node_in "$1" dyn)
    sel=$(pvc_json "$1" dyn | jq -r --arg g "$1-" '(.metadata.annotations["volume.kubernetes.io/selected-node"] // "") | ltrimstr($g)')
    [ "$nd" != - ] && [ "$nd" = "$sel" ] && claim_bound "$1" dyn
}
check_eval "dynamic: the claim was annotated with the selected node, provisioned there, Bound; the pod on that node" \
    "wait_for 40 'all_groups dyn_ok'"
for g in $groups; do
    pv=$(pvc_json "$g" dyn | jq -r '.spec.volumeName // ""')
    aff=$(kube_api GET "/api/v1/persistentvolumes/$pv" | jq -r '.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0] // "-"')
    outcome dynamic "$g" "pod on the selected node: $([ "$g-$(node_in "$g" dyn)" = "$aff" ] && echo yes || echo no), claim $(claim_of "$g" dyn | cut -d/ -f1)"
done
compare dynamic

# === 7. a claim deleted while the pod waits in PreBind ======================================
# Class dyn-never: nobody provisions, so the pod waits in PreBind for its
# claim (annotated with the selected node). The claim is deleted meanwhile;
# pvc-protection lets it go, since no scheduled pod uses it.
for g in $groups; do mkpvc "$g" slow dyn-never >/dev/null; vol_pod "$g" slow slow; done
selected() { [ -n "$(pvc_json "$1" slow | jq -r '.metadata.annotations["volume.kubernetes.io/selected-node"] // ""')" ]; }
check_eval "prebind: the claim is annotated with the selected node and the pod waits, unbound" \
    "wait_for 20 'all_groups selected' && sleep 1 && all_groups node_is slow -"
# Meanwhile the scheduler goes on with other pods (upstream: the wait is
# on a binding goroutine; moonsched: off the scheduling thread).
for g in $groups; do vol_pod "$g" during; done
check_eval "prebind: a pod without volumes created meanwhile is bound while the first still waits" \
    "wait_for 20 'all_groups bound during' && all_groups node_is slow -"
for g in $groups; do kube_api DELETE "/api/v1/namespaces/$g/persistentvolumeclaims/slow" >/dev/null; done
check_eval "prebind: the claim is gone" "wait_for 20 'all_groups claim_is slow gone/-'"
# (first the binding error, PodScheduled=False reason SchedulerError; then,
# tried again, PreFilter's rejection)
pending_reason_is() { [ "$(why_pending_reason "$1" "$2")" = "$3" ]; }
check_eval "prebind: the pod is not bound and, tried again, is pending with the missing claim as reason" \
    "wait_for $((bind_timeout + 20)) 'all_groups pending_reason_is slow \"persistentvolumeclaim \\\"slow\\\" not found\"'"
for g in $groups; do
    events_of "$g" slow FailedScheduling | sort -u >"$dir/prebind-events.$g"
    sed "s/^/# [$g] FailedScheduling: /" "$dir/prebind-events.$g" | head -n 4
    prebind_event=$(grep -c '^running PreBind plugin "VolumeBinding": ' "$dir/prebind-events.$g")
    outcome prebind "$g" "pod on $(node_in "$g" slow): $(why_pending_reason "$g" slow); a PreBind FailedScheduling event: $([ "$prebind_event" -gt 0 ] && echo yes || echo no)"
done
compare prebind

# === 8. ReadWriteOncePod and VolumeRestrictions on 1.20 =====================================
# kube-apiserver 1.20 does not know ReadWriteOncePod (alpha in 1.22): it
# refuses a claim with it, so no scheduler on this server can see one.
# ReadWriteOncePod is covered by the unit and simulate tests.
kube_api POST /api/v1/namespaces/default/persistentvolumeclaims '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"rwop"},"spec":{"accessModes":["ReadWriteOncePod"],"resources":{"requests":{"storage":"1Gi"}}}}' >"$dir/rwop.json"
check_eval "rwop: kube-apiserver 1.20 refuses a ReadWriteOncePod claim (422, Unsupported value)" \
    "jq -e '.code == 422 and (.message | contains(\"Unsupported value: \\\"ReadWriteOncePod\\\"\"))' '$dir/rwop.json' >/dev/null"
# What VolumeRestrictions does on 1.20: one read-write GCE PD per node.
# Two pods with the same disk inline, both restricted to n1.
for g in $groups; do
    for p in disk-1 disk-2; do
        jq -n --arg n "$p" --arg s "$(sched_of "$g")" --arg h "$g-n1" '{apiVersion: "v1", kind: "Pod", metadata: {name: $n},
            spec: {schedulerName: $s, nodeSelector: {"kubernetes.io/hostname": $h},
                   containers: [{name: "c", image: "pause"}],
                   volumes: [{name: "d", gcePersistentDisk: {pdName: "shared-disk"}}]}}' |
            kube_api POST "/api/v1/namespaces/$g/pods" "$(cat)" >/dev/null
        [ $p = disk-2 ] || wait_for 20 "bound $g disk-1"
    done
done
check_eval "restrictions: the second pod of a read-write GCE PD on the same node is pending: \"1 node(s) had no available disk\"" \
    "wait_for 20 'all_groups bound disk-1 && all_groups pending_with disk-2 \"1 node(s) had no available disk\"'"
for g in $groups; do outcome restrictions "$g" "disk-1 on $(node_in "$g" disk-1); disk-2: $(why_pending "$g" disk-2)"; done
compare restrictions

# --- the end -----------------------------------------------------------------------------
if [[ " $groups " == *" ms "* ]]; then
    check_eval "moonsched: no request refused (403) with deploy/'s permissions" "! grep -q 'status=403' '$dir/ms.log'"
    check_eval "moonsched: no object skipped" "! grep -q 'object skipped' '$dir/ms.log'"
    check_eval "moonsched exits 0 on SIGTERM" "stop_ms TERM"
fi
if [[ " $groups " == *" ks "* ]]; then check_eval "kube-scheduler ran throughout" "kill -0 $ks_pid"; fi
check_eval "kube-controller-manager ran throughout" "kill -0 $kcm_pid"

tap_done
