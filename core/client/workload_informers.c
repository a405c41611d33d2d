/* The informer resources of the objects PodTopologySpread's system
 * defaults read (upstream's helper.DefaultSelector): Services,
 * ReplicationControllers, ReplicaSets and StatefulSets, with their
 * decoders (api/workload.h). See client/informer.h.
 *
 * All four are optional: system:kube-scheduler may read them (1.20 and
 * later), but a narrower role answers 403, and scheduling goes on; the
 * pods' controllers then stand in for them (framework/plugins/
 * pod_topology_spread.c). */
#include "api/workload.h"
#include "client/informer.h"
#include "codec/decode_workload.h"

/* The resource's kind says which workload kind: MS_KIND_SERVICE + kind. */
static ms_rc decode_workload(const void *ctx, ms_object_kind kind, const cJSON *obj, void **out, ms_error *err) {
    ms_workload *w = NULL;
    ms_rc rc = ms_workload_decode(ctx, (ms_workload_kind)(kind - MS_KIND_SERVICE), obj, &w, err);
    *out = w;
    return rc;
}

static void *ref_workload(void *obj) { return ms_workload_ref(obj); }
static void unref_workload(void *obj) { ms_workload_unref(obj); }
#define WORKLOAD_OPS .optional = true, .decode = decode_workload, .ref = ref_workload, .unref = unref_workload

const ms_informer_resource ms_informer_services = {
    .kind = MS_KIND_SERVICE,
    .path = "/api/v1/services",
    WORKLOAD_OPS,
};

const ms_informer_resource ms_informer_replication_controllers = {
    .kind = MS_KIND_REPLICATION_CONTROLLER,
    .path = "/api/v1/replicationcontrollers",
    WORKLOAD_OPS,
};

const ms_informer_resource ms_informer_replica_sets = {
    .kind = MS_KIND_REPLICA_SET,
    .path = "/apis/apps/v1/replicasets",
    WORKLOAD_OPS,
};

const ms_informer_resource ms_informer_stateful_sets = {
    .kind = MS_KIND_STATEFUL_SET,
    .path = "/apis/apps/v1/statefulsets",
    WORKLOAD_OPS,
};
