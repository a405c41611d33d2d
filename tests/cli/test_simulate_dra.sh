#!/bin/sh
# Pods with resource claims (resource.k8s.io) in `simulate`: held back
# while a claim does not exist, placed where an allocated claim is
# available, claims allocated by the structured allocator, with
# DynamicResources' reasons in upstream's words; pods without claims placed
# as before;
# the claims and the resource.k8s.io objects checked as the API server
# validates them. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

"$M" simulate --cluster "$D/dra-claims.yaml" >"$T/out.txt"
check "exit 0" test $? -eq 0
HELD="never attempted: held back by PreEnqueue (DynamicResources:"
check "a claim from a template not generated yet: held back in upstream's words" \
    has_line "$T/out.txt" "default/gpu-job -> (unschedulable) $HELD pod \"default/gpu-job\": ResourceClaim not created yet)"
check "a named claim the files lack: held back, the claim named" \
    has_line "$T/out.txt" "default/shared-nic -> (unschedulable) $HELD could not find ResourceClaim \"default/rdma-nic\")"
check "a generated claim the files lack: held back, the generated name" \
    has_line "$T/out.txt" "default/generated -> (unschedulable) $HELD could not find ResourceClaim \"default/generated-gpu-5x2lq\")"
check "default/web (no claims) placed" grep -qx "default/web -> n1  (not scored: feasible 1/1)" "$T/out.txt"

"$M" simulate --cluster "$D/dra-claims.yaml" --output json >"$T/out.json"
check_eval "json: no node for the three pods with claims, DynamicResources' reason in their message" \
    "jq -e '[.placements[] | select(.pod != \"default/web\") |
             select(.node == null and (.message | contains(\"(DynamicResources: \")))] | length == 3' '$T/out.json' >/dev/null"

"$M" simulate --cluster "$D/dra-claim-states.yaml" >"$T/states.txt"
check "a generated claim another pod owns: upstream's words" \
    has_line "$T/states.txt" "default/not-owner -> (unschedulable) $HELD ResourceClaim someone-elses was not created for pod default/not-owner (pod is not owner))"
check "an unallocated claim: allocated on the node with a free device of its class" \
    has_line "$T/states.txt" "default/unallocated -> n1  (not scored: feasible 1/2)  devices: gpu=gpu.example.com/n1/gpu-0"
check "a claim allocated on rack r2: the pod goes to the node of rack r2 (the other refused), with its device" \
    has_line "$T/states.txt" "default/allocated -> n2  (not scored: feasible 1/2)  devices: gpu=gpu.example.com/r2/gpu-7"

# Without the plugin nothing looks at claims (upstream's profile without
# DynamicResources): the pods are placed, which shows the plugin decides.
"$M" simulate --cluster "$D/dra-claims.yaml" --config "$D/dra-no-plugin.yaml" --output json >"$T/off.json"
check_eval "DynamicResources disabled: all four pods placed" \
    "jq -e '[.placements[] | select(.node == \"n1\")] | length == 4' '$T/off.json' >/dev/null"

"$M" simulate --cluster "$D/dra-bad-claim.yaml" >/dev/null 2>"$T/bad.err"
check "a claim with both sources: exit 2" test $? -eq 2
check "... file, object, field and upstream's words" \
    grep -q "Pod default/both: spec.resourceClaims\[0\]: Invalid value: \"gpu\": at most one of \`resourceClaimName\` or \`resourceClaimTemplateName\` may be specified" "$T/bad.err"

# The example: pods sharing or owning an allocated claim go where it is
# available, with their devices; the others wait, each with its reason.
"$M" simulate --cluster examples/cluster-dra.yaml >"$T/ex.txt"
check "example: both trainers share the H100 claim allocated on gpu-b" \
    sh -c "grep -qx 'ml/trainer-0 -> gpu-b  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/gpu-b/gpu-0' '$T/ex.txt' &&
           grep -qx 'ml/trainer-1 -> gpu-b  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/gpu-b/gpu-0' '$T/ex.txt'"
check "example: the notebook goes with its generated claim to gpu-a" \
    has_line "$T/ex.txt" "ml/notebook -> gpu-a  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/gpu-a/gpu-1"
check "example: a claim not generated yet: held back, in upstream's words" \
    grep -q "^ml/batch-1 -> (unschedulable) $HELD pod \"ml/batch-1\": ResourceClaim not created yet)" "$T/ex.txt"
check "example: a generated claim not allocated: allocated the free A100 of gpu-a" \
    has_line "$T/ex.txt" "ml/batch-2 -> gpu-a  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/gpu-a/gpu-0"
check "example: a pod without claims has no devices part" grep -q "^default/web -> cpu-1  (score [0-9]*: .*feasible 3/3)\$" "$T/ex.txt"
"$M" simulate --cluster examples/cluster-dra.yaml --output json >"$T/ex.json"
check_eval "example json: the devices of the placed pods with claims, none for the others" \
    "jq -e '[.placements[] | select(.devices)] | map(.pod + \" \" + .devices) | sort ==
            [\"ml/batch-2 gpu=gpu.example.com/gpu-a/gpu-0\", \"ml/notebook gpu=gpu.example.com/gpu-a/gpu-1\",
             \"ml/trainer-0 gpu=gpu.example.com/gpu-b/gpu-0\", \"ml/trainer-1 gpu=gpu.example.com/gpu-b/gpu-0\"]' '$T/ex.json' >/dev/null"

# The allocator's cases, each pod taking devices the next cannot have.
"$M" simulate --cluster "$D/dra-allocator.yaml" >"$T/alloc.txt"
check "allocator: a selector (model H100) takes the one H100 of a complete pool at its newest generation" \
    has_line "$T/alloc.txt" "default/a-wants-h100 -> n2  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/n2/gpu-0"
check "allocator: two devices under matchAttribute numa: the two on NUMA 1 (backtracking past gpu-0)" \
    has_line "$T/alloc.txt" "default/b-wants-pair -> n1  (not scored: feasible 1/3)  devices: gpus=gpu.example.com/n1/gpu-1, gpus=gpu.example.com/n1/gpu-2"
check "allocator: firstAvailable falls back to its second choice when no 80Gi GPU is free" \
    has_line "$T/alloc.txt" "default/c-wants-big-or-any -> n1  (not scored: feasible 1/3)  devices: gpu=gpu.example.com/n1/gpu-0"
check "allocator: every device taken: upstream's Filter reason on each node" \
    grep -q "^default/d-wants-one-more -> (unschedulable) 0/3 nodes are available: 3 cannot allocate all claims\." "$T/alloc.txt"
check "allocator: admin access with All takes devices in use" \
    has_line "$T/alloc.txt" "default/e-monitors-h100 -> n2  (not scored: feasible 1/3)  devices: gpus=gpu.example.com/n2/gpu-0"
check "allocator: a missing class: refused in PreFilter, in upstream's words" \
    grep -q "^default/f-wants-fpga -> (unschedulable) 0/3 nodes are available: request gpu: device class fpga does not exist\." \
    "$T/alloc.txt"

# explain's recomputed Filter pass says, after upstream's words, which
# request of which claim the node cannot satisfy and why.
"$M" simulate --cluster "$D/dra-allocator.yaml" --explain default/d-wants-one-more >"$T/explain.txt"
check "explain: a node whose matching devices are all taken" \
    grep -q "^  n1 .*DynamicResources: UnschedulableAndUnresolvable: cannot allocate all claims, claim one-more, request gpu: 1 needed, 3 device(s) on the node match (class gpu: device.driver == \"gpu.example.com\"), 0 of them free$" "$T/explain.txt"
check "explain: a node without a matching device" \
    grep -q "^  n3 .*DynamicResources: UnschedulableAndUnresolvable: cannot allocate all claims, claim one-more, request gpu: 1 needed, 0 device(s) on the node match" "$T/explain.txt"

# A claim allocated by the first of two pods sharing it: PreBind wrote the
# allocation, the second pod finds it allocated and gets the same device.
"$M" simulate --cluster "$D/dra-shared-claim.yaml" >"$T/shared.txt"
check "a shared claim: allocated once, both pods on its node with its one device" \
    sh -c "grep -qx 'default/a -> n1  (not scored: feasible 1/1)  devices: gpu=gpu.example.com/n1/gpu-0' '$T/shared.txt' &&
           grep -qx 'default/b -> n1  (not scored: feasible 1/1)  devices: gpu=gpu.example.com/n1/gpu-0' '$T/shared.txt'"

# A device policy (pick_devices) chooses among the ways the claims can be
# allocated on the chosen node; without it the allocator takes the first
# free devices. Two pods each claim two GPUs of a node with two NVLink
# islands (gpu-0..3, gpu-4..7), gpu-0, gpu-4 and gpu-5 in use.
NV="devices: gpus=gpu.example.com/n1"
"$M" simulate --cluster examples/cluster-dra-nvlink.yaml >"$T/nv.txt"
check "no device policy: the first free GPUs, the second pod across both islands" \
    sh -c "grep -qx 'default/train-a -> n1  (not scored: feasible 1/1)  $NV/gpu-1, gpus=gpu.example.com/n1/gpu-2' '$T/nv.txt' &&
           grep -qx 'default/train-b -> n1  (not scored: feasible 1/1)  $NV/gpu-3, gpus=gpu.example.com/n1/gpu-6' '$T/nv.txt'"
"$M" simulate --cluster examples/cluster-dra-nvlink.yaml --policy policies/gpu-topology.lua >"$T/nv-policy.txt"
check "gpu-topology: the first pod on the fuller island, the second on one island" \
    sh -c "grep -qx 'default/train-a -> n1  (not scored: feasible 1/1)  $NV/gpu-6, gpus=gpu.example.com/n1/gpu-7' '$T/nv-policy.txt' &&
           grep -qx 'default/train-b -> n1  (not scored: feasible 1/1)  $NV/gpu-1, gpus=gpu.example.com/n1/gpu-2' '$T/nv-policy.txt'"
cat >"$T/last.lua" <<'LUA'
local p = { name = "last" }
function p.pick_devices(_, _, options) return #options end
return p
LUA
"$M" simulate --cluster examples/cluster-dra-nvlink.yaml --policy "$T/last.lua" >"$T/nv-last.txt"
check "an index: that option (the last pair of the five free GPUs: gpu-6, gpu-7)" \
    has_line "$T/nv-last.txt" "default/train-a -> n1  (not scored: feasible 1/1)  $NV/gpu-6, gpus=gpu.example.com/n1/gpu-7"
cat >"$T/broken.lua" <<'LUA'
local p = { name = "broken" }
function p.pick_devices() return "gpu-7" end
return p
LUA
"$M" simulate --cluster examples/cluster-dra-nvlink.yaml --policy "$T/broken.lua" >"$T/nv-broken.txt" 2>"$T/nv-broken.err"
check "a failing pick_devices fails the pod's cycle, with the policy's error" \
    has_line "$T/nv-broken.err" "policy lua:broken: error: pick_devices returned gpu-7: expected an index in 1..10, a score per option or nil"
check "... retried until the policy is disabled (10 failures), then the allocator's choice" \
    sh -c "grep -q 'disabled after 10 consecutive failures of pick_devices' '$T/nv-broken.err' &&
           grep -qx 'default/train-a -> n1  (not scored: feasible 1/1)  $NV/gpu-1, gpus=gpu.example.com/n1/gpu-2' '$T/nv-broken.txt'"

# Preemption counts the devices its victims free: the only GPU is held by
# a lower-priority pod's claim; the pod is preempted, its claim
# deallocated once it is gone, and the preemptor gets the GPU.
"$M" simulate --cluster "$D/dra-preemption.yaml" >"$T/pre.txt"
check "a GPU held by a lower-priority pod: that pod is preempted" \
    has_line "$T/pre.txt" "  preempted default/low on n1 by default/high (priority 1000 > 10)"
check "... and the preemptor gets its device" \
    has_line "$T/pre.txt" "default/high -> n1  (not scored: feasible 1/2)  devices: gpu=gpu.example.com/n1/gpu-0"
sed 's/priority: 1000/priority: 10/' "$D/dra-preemption.yaml" >"$T/peer.yaml"
"$M" simulate --cluster "$T/peer.yaml" >"$T/peer.txt"
check "the same priority as the holder: nobody preempted (unresolvable, as upstream), PostFilter's and preemption's words" \
    has_line "$T/peer.txt" "default/high -> (unschedulable) 0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."

# PostFilter as upstream: a claim allocated where the pod does not fit,
# reserved for nobody, is deallocated; the pod then gets it elsewhere.
"$M" simulate --cluster "$D/dra-postfilter.yaml" >"$T/post.txt"
check "PostFilter deallocates a claim available only where the pod does not fit; allocated again where it does" \
    has_line "$T/post.txt" "default/big -> n1  (not scored: feasible 1/2)  devices: nic=gpu.example.com/net/nic-0"

# scheduler_perf's SchedulingWithResourceClaimTemplate, generated (make
# bench runs it at 500 nodes): 3 nodes of 10 devices, 31 pods: 30 placed,
# each with a device of its own, the last one without.
"$M" simulate --generate shape=SchedulingWithResourceClaimTemplate,nodes=3,pods=31 >"$T/gen.txt"
check "generated DRA shape: 30 pods placed, 30 distinct devices" \
    sh -c "test \$(grep -o 'devices: resource=.*' '$T/gen.txt' | sort -u | wc -l) -eq 30"
check "... the 31st: cannot allocate all claims on the 3 nodes" \
    grep -q "(unschedulable) 0/3 nodes are available: 3 cannot allocate all claims\." "$T/gen.txt"

# The descheduler predicts moves with devices: the evicted pod's claim is
# deallocated as its deletion leaves it, the replacement's allocated where
# it goes; where no device is free, the pod stays (and its claim as it was).
"$M" simulate --cluster "$D/deschedule-dra.yaml" --deschedule "$D/deschedule-taints.yaml" --output json >"$T/ds.json"
check_eval "deschedule: a pod with an allocated claim moves to the node with a free device" \
    "jq -e '.evictions == [{\"namespace\": \"default\", \"name\": \"trainer\", \"node\": \"n1\", \"strategy\": \"RemovePodsViolatingNodeTaints\", \"reason\": \"pod does not tolerate a taint of its node\", \"to\": \"n2\"}]' '$T/ds.json' >/dev/null"
sed 's/^  nodeName: n2$/  nodeName: n3/' "$D/deschedule-dra.yaml" >"$T/ds-nogpu.yaml"
"$M" simulate --cluster "$T/ds-nogpu.yaml" --deschedule "$D/deschedule-taints.yaml" >"$T/ds-nogpu.txt"
check "deschedule: no free device elsewhere: skipped, with the scheduler's reason" \
    grep -q "^default/trainer .*it fits nowhere else (unschedulable: 0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) had untolerated taint" "$T/ds-nogpu.txt"

# resource.k8s.io/v1 objects are read, not skipped; a bad one stops the run.
"$M" simulate --cluster "$D/dra-objects.yaml" --stats >/dev/null 2>"$T/stats.txt"
check "DeviceClass, ResourceSlice, ResourceClaimTemplate read: none skipped" \
    grep -qx "objects read:      4 (0 skipped)" "$T/stats.txt"
sed 's/resourceSliceCount: 1/resourceSliceCount: 0/' "$D/dra-objects.yaml" >"$T/bad-slice.yaml"
"$M" simulate --cluster "$T/bad-slice.yaml" >/dev/null 2>"$T/bad-slice.err"
check "a ResourceSlice with resourceSliceCount 0: exit 2" test $? -eq 2
check "... the object, the field path and upstream's words" \
    grep -q "ResourceSlice n1-gpus: spec.pool.resourceSliceCount: Invalid value: \"0\": must be greater than zero" \
    "$T/bad-slice.err"

tap_done
