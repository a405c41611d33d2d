#!/bin/sh
# `moonsched simulate` with PersistentVolumes, claims, StorageClasses and
# CSINodes: VolumeBinding, VolumeZone, NodeVolumeLimits and
# VolumeRestrictions decide, and the in-memory binder binds claims as the
# PV controller and a provisioner would. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

# ---- local PVs, WaitForFirstConsumer (kubectl get -o yaml shapes) ----
"$M" simulate --cluster "$D/volumes-local-wffc.yaml" >"$T/local.out" 2>"$T/local.err"
check "local: exit 0, nothing on stderr" sh -c "test $? -eq 0 && test ! -s '$T/local.err'"
check "local: the first pod of the shared claim goes to the PV's node, claim bound" \
    sh -c "grep -q '^default/shared-0 -> n1  (.*)  volumes: data=local-n1\$' '$T/local.out'"
check "local: every pod of the shared claim follows it to n1" \
    test "$(grep -c '^default/shared-[0-3] -> n1 ' "$T/local.out")" -eq 4
check "local: on n2 the smallest PV that fits is taken first" \
    sh -c "grep -q '^default/web-0 -> n2 .*volumes: www-web-0=local-n2-small\$' '$T/local.out'"
check "local: no PV is given twice" \
    test "$(grep -o 'volumes: .*' "$T/local.out" | sed 's/.*=//' | sort | uniq -d | wc -l)" -eq 0
check "local: the fourth claim finds no PV left" has_line "$T/local.out" \
    "default/web-3 -> (unschedulable) 0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

"$M" simulate --cluster "$D/volumes-local-wffc.yaml" --output json >"$T/local.json"
check "local json: the bound claims are reported per placement" \
    sh -c "jq -e '.placements[] | select(.pod == \"default/web-1\") | .node == \"n3\" and .volumes == \"www-web-1=local-n3\"' '$T/local.json' >/dev/null"
check "local json: a pod without new bindings has no volumes field" \
    sh -c "! grep -q '\"pod\":\"default/shared-1\",[^}]*\"volumes\"' '$T/local.json'"

# ---- scenarios ----
"$M" simulate --cluster "$D/volumes-scenarios.yaml" >"$T/sc.out" 2>&1
check "scenarios: exit 0" test $? -eq 0
check "zonal: a PV labelled zone-b keeps its pod in zone-b (VolumeZone)" \
    sh -c "grep -q '^zonal/db -> n2 ' '$T/sc.out'"
check "zonal: allowedTopologies send the provisioned claim to zone-c" \
    sh -c "grep -q '^zonal/cache -> n3 .*volumes: cache=pvc-z2 (provisioned)\$' '$T/sc.out'"
check "immediate: an unbound claim of an Immediate class" has_line "$T/sc.out" \
    "imm/app -> (unschedulable) 0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
check "race: the first pod takes the only PV" sh -c "grep -q '^race/first -> n1 .*volumes: a=race-pv\$' '$T/sc.out'"
check "race: the second finds none" has_line "$T/sc.out" \
    "race/second -> (unschedulable) 0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
check "limits: two EBS volumes exceed a CSINode count of 1 everywhere" \
    sh -c "grep -q '^limits/two -> (unschedulable) 0/3 nodes are available: 3 node(s) exceed max volume count\\.' '$T/sc.out'"
check "limits: three pods with one volume each spread over the three nodes" \
    test "$(grep -E '^limits/one-[abc] -> n[123] ' "$T/sc.out" | sed 's/.* -> \(n[123]\) .*/\1/' | sort -u | wc -l)" -eq 3
check "rwop: a ReadWriteOncePod claim in use" has_line "$T/sc.out" \
    "rwop/second -> (unschedulable) 0/3 nodes are available: 3 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
check "gone: a claim being deleted" has_text "$T/sc.out" \
    "gone/deleting -> (unschedulable) 0/3 nodes are available: persistentvolumeclaim \"old\" is being deleted."
check "gone: a claim that does not exist" has_text "$T/sc.out" \
    "gone/missing -> (unschedulable) 0/3 nodes are available: persistentvolumeclaim \"nothere\" not found."

# ---- storage objects are read, not skipped ----
"$M" simulate --cluster "$D/volumes-scenarios.yaml" --quiet --stats >/dev/null 2>"$T/stats"
check "stats: no storage kind counted as skipped" \
    sh -c "! grep -Eq 'PersistentVolume|StorageClass|CSINode' '$T/stats'"

# ---- a bad value is quoted with its object and field ----
cat >"$T/bad.yaml" <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: x
volumeBindingMode: Later
YAML
"$M" simulate --cluster "$T/bad.yaml" >"$T/bad.out" 2>&1
check "bad class: exit 2" test $? -eq 2
check "bad class: the message names object, field and value" has_text "$T/bad.out" \
    "StorageClass fast: volumeBindingMode: Unsupported value: \"Later\": supported values: \"Immediate\", \"WaitForFirstConsumer\""

# ---- the generator's volume shape ----
"$M" simulate --generate shape=volumes,nodes=20,pods=30 --output json >"$T/gen.json"
check "generator volumes: all 30 pods placed, each with its own PV" \
    test "$(grep -o '\"volumes\":\"pvc-[0-9]*=pv-[0-9]*\"' "$T/gen.json" | wc -l)" -eq 30
"$M" simulate --generate shape=volumes,nodes=2,pods=3 >"$T/gen.out"
check "generator volumes: a PV is used on its own node only" \
    sh -c "grep -q 'volumes: pvc-0=pv-0' '$T/gen.out' && grep '=pv-1\$' '$T/gen.out' | grep -q ' -> node-1 '"

tap_done
