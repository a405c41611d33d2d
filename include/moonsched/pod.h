/* A decoded Pod: immutable once built, reference counted so that the queue,
 * the cache and a snapshot can share it across threads. Every field lives in
 * the pod's own arena. */
#ifndef MOONSCHED_POD_H
#define MOONSCHED_POD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/meta.h"
#include "moonsched/resources.h"
#include "moonsched/selector.h"

/* spec.schedulerName when a pod names none (the API server's defaulting),
 * and so the name of upstream's default profile. */
#define MS_DEFAULT_SCHEDULER_NAME "default-scheduler"

#pragma GCC visibility push(default)

typedef enum ms_taint_effect {
    MS_EFFECT_NONE = 0,            /* toleration with empty effect: all effects */
    MS_EFFECT_NO_SCHEDULE,
    MS_EFFECT_PREFER_NO_SCHEDULE,
    MS_EFFECT_NO_EXECUTE,
} ms_taint_effect;

typedef enum ms_toleration_op {
    MS_TOL_EQUAL = 0,              /* default when operator is empty */
    MS_TOL_EXISTS,
} ms_toleration_op;

typedef struct ms_toleration {
    ms_str key;                    /* MS_STR_NONE: empty key (with Exists: tolerates everything) */
    ms_str value;                  /* MS_STR_NONE when absent or empty (as taint values) */
    uint8_t op;                    /* ms_toleration_op */
    uint8_t effect;                /* ms_taint_effect */
    bool has_seconds;
    int64_t toleration_seconds;
} ms_toleration;

typedef enum ms_protocol { MS_PROTO_TCP = 0, MS_PROTO_UDP, MS_PROTO_SCTP } ms_protocol;

typedef struct ms_host_port {
    ms_str host_ip;                /* MS_STR_NONE or "0.0.0.0": all addresses */
    int32_t port;                  /* hostPort, > 0 */
    uint8_t protocol;              /* ms_protocol */
} ms_host_port;

typedef struct ms_preferred_term {
    int32_t weight;
    ms_node_selector_term term;
} ms_preferred_term;

typedef struct ms_pod_affinity_term {
    ms_label_selector selector;    /* labelSelector (nil: matches nothing) */
    uint32_t nnamespaces;
    ms_str *namespaces;            /* empty and no namespaceSelector: the pod's own namespace */
    bool has_namespace_selector;
    ms_label_selector namespace_selector;   /* {} = all namespaces */
    ms_str topology_key;
    uint32_t nmatch_label_keys;
    ms_str *match_label_keys;
    uint32_t nmismatch_label_keys;
    ms_str *mismatch_label_keys;
} ms_pod_affinity_term;

typedef struct ms_weighted_pod_affinity_term {
    int32_t weight;
    ms_pod_affinity_term term;
} ms_weighted_pod_affinity_term;

typedef struct ms_pod_affinity {
    uint32_t nrequired;
    ms_pod_affinity_term *required;
    uint32_t npreferred;
    ms_weighted_pod_affinity_term *preferred;
} ms_pod_affinity;

typedef enum ms_when_unsatisfiable { MS_DO_NOT_SCHEDULE = 0, MS_SCHEDULE_ANYWAY } ms_when_unsatisfiable;
typedef enum ms_inclusion_policy { MS_POLICY_UNSET = 0, MS_POLICY_HONOR, MS_POLICY_IGNORE } ms_inclusion_policy;

typedef struct ms_topology_spread {
    int32_t max_skew;
    ms_str topology_key;
    uint8_t when_unsatisfiable;    /* ms_when_unsatisfiable */
    ms_label_selector selector;
    int32_t min_domains;           /* 0 when unset (means 1) */
    uint8_t node_affinity_policy;  /* ms_inclusion_policy; unset = Honor */
    uint8_t node_taints_policy;    /* ms_inclusion_policy; unset = Ignore */
    uint32_t nmatch_label_keys;
    ms_str *match_label_keys;
} ms_topology_spread;

typedef enum ms_pod_phase {
    MS_PHASE_PENDING = 0, MS_PHASE_RUNNING, MS_PHASE_SUCCEEDED, MS_PHASE_FAILED, MS_PHASE_UNKNOWN
} ms_pod_phase;

typedef enum ms_qos { MS_QOS_BEST_EFFORT = 0, MS_QOS_BURSTABLE, MS_QOS_GUARANTEED } ms_qos;

typedef enum ms_preemption_policy {
    MS_PREEMPT_LOWER_PRIORITY = 0, MS_PREEMPT_NEVER
} ms_preemption_policy;

/* The volume sources the scheduler looks at; every other kind (emptyDir,
 * configMap, secret, hostPath, projected, csi, nfs, ...) is only counted. */
typedef enum ms_volume_kind {
    MS_VOL_GCE_PD = 1,             /* gcePersistentDisk */
    MS_VOL_AWS_EBS,                /* awsElasticBlockStore */
    MS_VOL_RBD,                    /* rbd */
    MS_VOL_ISCSI,                  /* iscsi */
    MS_VOL_PVC,                    /* persistentVolumeClaim */
    MS_VOL_EPHEMERAL,              /* ephemeral (generic ephemeral: a PVC named <pod>-<volume>) */
    /* In-tree inline sources that CSI migration can translate (azureDisk,
     * azureFile, cinder, vsphereVolume, portworxVolume): NodeVolumeLimits
     * counts them once CSINode objects are known. */
    MS_VOL_CSI_MIGRATABLE,
} ms_volume_kind;

/* The in-tree volume plugins CSI migration translates (upstream's
 * kubernetes.io/gce-pd, ...), for NodeVolumeLimits. */
typedef enum ms_intree_plugin {
    MS_INTREE_NONE = 0,
    MS_INTREE_GCE_PD,              /* kubernetes.io/gce-pd -> pd.csi.storage.gke.io */
    MS_INTREE_AWS_EBS,             /* kubernetes.io/aws-ebs -> ebs.csi.aws.com */
    MS_INTREE_AZURE_DISK,          /* kubernetes.io/azure-disk -> disk.csi.azure.com */
    MS_INTREE_AZURE_FILE,          /* kubernetes.io/azure-file -> file.csi.azure.com */
    MS_INTREE_CINDER,              /* kubernetes.io/cinder -> cinder.csi.openstack.org */
    MS_INTREE_VSPHERE,             /* kubernetes.io/vsphere-volume -> csi.vsphere.vmware.com */
    MS_INTREE_PORTWORX,            /* kubernetes.io/portworx-volume -> pxd.portworx.com */
} ms_intree_plugin;

typedef struct ms_volume {
    ms_str name;                   /* volumes[].name */
    uint8_t kind;                  /* ms_volume_kind */
    uint8_t plugin;                /* ms_intree_plugin of a migratable in-tree source */
    bool read_only;                /* GCE PD, RBD, ISCSI, PVC */
    int32_t lun;                   /* ISCSI */
    /* The source's identity: GCE pdName, EBS volumeID, RBD image, ISCSI
     * iqn, PVC claimName, ephemeral claim name (<pod>-<volume>); for the
     * other migratable sources Azure diskURI / shareName, Cinder and
     * Portworx volumeID, vSphere volumePath. */
    ms_str id;
    ms_str pool;                   /* RBD pool ("rbd" when empty, as API defaulting) */
    ms_str target_portal;          /* ISCSI */
    uint32_t nmonitors;
    ms_str *monitors;              /* RBD monitors */
} ms_volume;

/* One spec.resourceClaims entry (resource.k8s.io, GA in 1.34): it names a
 * ResourceClaim, or a ResourceClaimTemplate from which the resourceclaim
 * controller makes one, whose name then appears in
 * status.resourceClaimStatuses. Exactly one of the two is set. */
typedef struct ms_pod_resource_claim {
    ms_str name;                   /* unique in the pod, referenced by containers */
    ms_str claim_name;             /* resourceClaimName, else MS_STR_NONE */
    ms_str template_name;          /* resourceClaimTemplateName, else MS_STR_NONE */
} ms_pod_resource_claim;

/* One status.resourceClaimStatuses entry: the claim generated for a
 * template entry; MS_STR_NONE when none was needed (upstream's nil). */
typedef struct ms_pod_resource_claim_status {
    ms_str name;                   /* a spec.resourceClaims name */
    ms_str claim_name;
} ms_pod_resource_claim_status;

typedef struct ms_pod {
    _Atomic int32_t refs;
    ms_arena arena;
    /* Set on copies made by ms_pod_with_node: the referenced pod whose arena
     * holds every pointer field (they are immutable, so sharing is safe). */
    struct ms_pod *base;
    ms_object_meta meta;

    /* spec */
    ms_str node_name;              /* MS_STR_NONE when not bound */
    ms_str scheduler_name;         /* "default-scheduler" when absent */
    int32_t priority;              /* 0 when absent */
    bool has_priority;
    uint8_t preemption_policy;     /* ms_preemption_policy */
    ms_labels node_selector;

    bool has_node_affinity_required;
    ms_node_selector node_affinity_required;
    uint32_t nnode_affinity_preferred;
    ms_preferred_term *node_affinity_preferred;
    ms_pod_affinity pod_affinity;
    ms_pod_affinity pod_anti_affinity;

    uint32_t ntolerations;
    ms_toleration *tolerations;
    uint32_t ntopology_spread;
    ms_topology_spread *topology_spread;
    uint32_t nhost_ports;
    /* Ports with hostPort > 0 of the containers and of the restartable init
     * containers (sidecars), as upstream's GetHostPorts: other init
     * containers have finished before the pod runs. */
    ms_host_port *host_ports;
    uint32_t nimages;
    uint32_t ninit_images;         /* the first ninit_images of images are the init containers' */
    /* One per init container then per container, in spec order, normalized
     * as upstream's ImageLocality (":latest" added when there is neither tag
     * nor digest); MS_STR_NONE for a container without an image, so that
     * nimages is upstream's container count. */
    ms_str *images;

    /* spec.volumes of the kinds above, in spec order; nother_volumes
     * counts the rest. */
    uint32_t nvolumes;
    ms_volume *volumes;
    uint32_t nother_volumes;

    /* spec.schedulingGates' names, in spec order (GA in 1.30): while any
     * remains, the SchedulingGates PreEnqueue plugin keeps the pod out of
     * activeQ. */
    uint32_t nscheduling_gates;
    ms_str *scheduling_gates;

    /* spec.resourceClaims in spec order: a pod with any is scheduled only
     * once DynamicResources has its claims allocated. */
    uint32_t nresource_claims;
    ms_pod_resource_claim *resource_claims;

    /* upstream's PodRequests (k8s.io/component-helpers/resource):
     * max(sum of containers and sidecars, each init container plus the
     * sidecars declared before it), then pod-level resources (spec.resources:
     * cpu, memory, hugepages-*) replace the containers' totals, then overhead
     * is added. Requests default to limits (API defaulting). Pod count is not
     * included here. limits: PodLimits, overhead added to non-zero limits. */
    ms_resources requests;
    ms_resources limits;
    /* cpu and memory of requests, with upstream's non-zero defaults (100m
     * CPU, 200Mi) standing in for each container's missing (not zero) cpu /
     * memory request; used by scoring. */
    int64_t non_zero_cpu;
    int64_t non_zero_mem;
    uint8_t qos;                   /* ms_qos: status.qosClass, else computed (GetPodQOS) */

    /* status */
    uint8_t phase;                 /* ms_pod_phase */
    ms_str nominated_node_name;
    bool scheduled_condition_false;   /* PodScheduled=False already reported */
    /* ... with reason SchedulingGated (a 1.30 API server sets it when a
     * pod is created with gates) */
    bool scheduling_gated_condition;
    /* Its first DisruptionTarget condition is True with reason
     * PreemptionByScheduler: a scheduler's preemption is deleting it
     * (upstream's podTerminatingByPreemption, with deletion set). */
    bool disruption_by_preemption;
    uint32_t nresource_claim_statuses;
    ms_pod_resource_claim_status *resource_claim_statuses;
    double start_time;             /* status.startTime, unix seconds; 0 when absent */
    /* What the descheduler's strategies read. status.reason ("Evicted",
     * "NodeLost", ...): MS_STR_NONE when absent. */
    ms_str status_reason;
    /* restartCount summed over status.containerStatuses, and over
     * status.initContainerStatuses. */
    int32_t restarts;
    int32_t init_restarts;
    /* The waiting or terminated reasons of the containers (init containers
     * first, then containers, as the status lists them; "CrashLoopBackOff",
     * "OOMKilled", ...), and of the init containers alone counted by
     * ninit_reasons at the front. */
    uint32_t ncontainer_reasons;
    uint32_t ninit_reasons;
    ms_str *container_reasons;
    /* A container's waiting reason is CrashLoopBackOff (upstream's
     * RemovePodsHavingTooManyRestarts "states"). */
    bool crash_loop_back_off;
    /* spec.volumes has an emptyDir or a hostPath (upstream's
     * IsPodWithLocalStorage). */
    bool has_local_storage;

    /* Hash of spec, labels and annotations as decoded (0: unknown, e.g. a
     * pod built by hand): an update that keeps it and the node binding is
     * a status-only change, which does not make an unschedulable pod worth
     * retrying (upstream's isPodUpdated). */
    uint64_t spec_hash;

    /* The object as decoded, compact JSON in the arena (copies made by
     * ms_pod_with_node share it and do not carry their nodeName in it); NULL
     * unless the decoder had keep_raw. */
    const char *raw;
    size_t raw_len;

    /* The interner holding a counted reference on meta.name (pods decoded
     * by ms_pod_decode), released when the pod is freed; NULL when the name
     * is interned for good. */
    ms_interner *names;
} ms_pod;

/* Reference counting: a new pod has refs == 1. ms_pod_unref frees at 0.
 * The struct itself is heap-allocated (ms_pod_alloc); its fields live in
 * its arena. */
ms_pod *ms_pod_alloc(void);
static inline ms_pod *ms_pod_ref(ms_pod *p) {
    atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
    return p;
}
void ms_pod_unref(ms_pod *p);

/* A copy of p with spec.nodeName set (what the cache keeps for an assumed
 * pod). The copy shares nothing mutable with p. */
ms_pod *ms_pod_with_node(const ms_pod *p, ms_str node_name);
/* A copy of p with status.nominatedNodeName set (MS_STR_NONE: cleared), for
 * a scheduler that records a nomination the API server would echo back
 * (simulate). Shares nothing mutable with p. */
ms_pod *ms_pod_with_nominated_node(const ms_pod *p, ms_str node);

/* "namespace/name" into buf. */
int ms_pod_key(const ms_pod *p, const ms_interner *in, char *buf, size_t n);

/* Terminal pods (Succeeded/Failed) hold no resources. */
static inline bool ms_pod_is_terminal(const ms_pod *p) {
    return p->phase == MS_PHASE_SUCCEEDED || p->phase == MS_PHASE_FAILED;
}

static inline bool ms_pod_has_affinity(const ms_pod *p) {
    return p->pod_affinity.nrequired || p->pod_affinity.npreferred ||
           p->pod_anti_affinity.nrequired || p->pod_anti_affinity.npreferred;
}

#pragma GCC visibility pop

#endif
