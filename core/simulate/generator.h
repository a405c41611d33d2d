/* Synthetic clusters for `simulate --generate` and the benchmarks, shaped
 * like scheduler_perf's SchedulingBasic (node-default.yaml: 4 cpu, 32Gi,
 * 110 pods, Ready; pod-default.yaml: one pause container requesting and
 * limited to 100m / 500Mi, containerPort 80). Objects are built as API
 * objects and decoded by the regular decoder, so they are real ms_node and
 * ms_pod values with every derived field filled.
 *
 * Spec text: comma-separated key=value pairs, e.g.
 *   nodes=5000,pods=10000,zones=3,node-cpu=32,node-memory=64Gi
 * Keys: nodes, pods (pending), bound-pods (already bound, round-robin over
 * the nodes), zones (topology.kubernetes.io/zone labels zone-0..; 0 = none),
 * node-cpu, node-memory, node-pods, pod-cpu, pod-memory (quantities),
 * priorities (pending pods get a priority drawn in [0, N) when N > 1),
 * namespace, seed (for the drawn priorities), spread (hard or soft: pending
 * pods are scheduler_perf's pod-with-topology-spreading.yaml /
 * pod-with-preferred-topology-spreading.yaml: label color=blue and a
 * maxSkew 5 zone constraint over color=blue, DoNotSchedule or
 * ScheduleAnyway),
 * shape: basic (the default)
 * or preemption (scheduler_perf's Preemption: the bound pods are
 * low-priority 900m/500Mi pods, four filling a default node, the pending
 * pods high-priority (10) 3000m/500Mi ones that fit only by preempting;
 * pod-cpu, pod-memory and priorities do not apply)
 * or pod-anti-affinity (SchedulingPodAntiAffinity: every pod labelled
 * color=green with required anti-affinity to color=green on
 * kubernetes.io/hostname over the namespaces sched-test and sched-setup;
 * bound pods in sched-setup, pending ones in sched-test)
 * or node-affinity (SchedulingNodeAffinity as in 1.20: nodes labelled
 * failure-domain.beta.kubernetes.io/zone=zone1, every pod requiring that
 * key In [zone1, zone2])
 * or volumes (local PersistentVolumes with WaitForFirstConsumer: a
 * StorageClass "local-storage" with provisioner
 * kubernetes.io/no-provisioner, one 10Gi local PV "pv-N" per pending pod,
 * round-robin over the nodes, with node affinity on the node's hostname,
 * and each pending pod "pod-N" using its own 1Gi claim "pvc-N"; bound pods
 * have no volumes),
 * or deschedule (a cluster to deschedule: the bound pods are owned by a
 * ReplicaSet, carry the spread pods' label and zone constraint
 * (DoNotSchedule), and fill only the first half of the nodes, the other
 * half idle; bound-nodes=N packs them on the first N nodes instead),
 * or one of scheduler_perf's test cases by its upstream name
 * (generator_upstream.c: SchedulingPodAffinity, MixedSchedulingBasePod,
 * Unschedulable, ...): nodes, bound-pods (its init pods), pods (its
 * measured pods), churn-pods (its churn step's pods), gated-pods
 * (SchedulingWhileGated) and init-namespaces (the ...WithNSSelector
 * cases) size it. */
#ifndef MOONSCHED_GENERATOR_H
#define MOONSCHED_GENERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "api/dra.h"
#include "api/storage.h"
#include "api/workload.h"
#include "moonsched/decode.h"
#include "moonsched/namespaces.h"
#include "moonsched/error.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"

typedef struct ms_generator_spec {
    uint32_t nodes;                /* 0 */
    uint32_t pods;                 /* 0 */
    uint32_t bound_pods;           /* 0 */
    uint32_t zones;                /* 0 */
    char node_cpu[32];             /* "4" */
    char node_memory[32];          /* "32Gi" */
    char node_pods[32];            /* "110" */
    char pod_cpu[32];              /* "100m" */
    char pod_memory[32];           /* "500Mi" */
    uint32_t priorities;           /* 0 */
    char namespace_[64];           /* "default" */
    char shape[64];                /* "basic", "preemption", "pod-anti-affinity", "node-affinity", "volumes",
                                    * an upstream test case's name */
    uint64_t seed;                 /* 1 */
    uint8_t spread;                /* ms_generator_spread: MS_SPREAD_NONE */
    uint32_t bound_nodes;          /* deschedule: nodes the bound pods fill; 0: half */
    uint32_t churn_pods;           /* upstream shapes with a churn step: 0 */
    uint32_t gated_pods;           /* SchedulingWhileGated: 0 */
    uint32_t init_namespaces;      /* the ...WithNSSelector shapes: 100 */
} ms_generator_spec;

typedef enum ms_generator_spread { MS_SPREAD_NONE = 0, MS_SPREAD_HARD, MS_SPREAD_SOFT } ms_generator_spread;

void ms_generator_spec_default(ms_generator_spec *g);
/* Parses spec text over the current values. Errors name the key:
 * "--generate: node-memory: quantities must match ...". */
ms_rc ms_generator_parse(const char *text, ms_generator_spec *g, ms_error *err);

/* Receives each object with the one reference it was created with. */
typedef struct ms_generator_sink {
    void *ctx;
    ms_rc (*node)(void *ctx, ms_node *node, ms_error *err);
    ms_rc (*pod)(void *ctx, ms_pod *pod, ms_error *err);
    /* StorageClasses, PVs, claims and CSINodes (shapes volumes and
     * SchedulingCSIPVs); NULL: not made. */
    ms_rc (*storage)(void *ctx, ms_storage_object *o, ms_error *err);
    /* Namespaces (the upstream shapes); NULL: not made. */
    ms_rc (*namespace_)(void *ctx, ms_namespace *ns, ms_error *err);
    /* resource.k8s.io objects as API JSON (shape MS_SHAPE_DRA); NULL: not made. */
    ms_rc (*dra)(void *ctx, ms_dra_kind kind, const cJSON *obj, ms_error *err);
    /* Services (shape DefaultTopologySpreading); NULL: not made. */
    ms_rc (*workload)(void *ctx, ms_workload *w, ms_error *err);
} ms_generator_sink;

/* Nodes "node-N" first, then (shape volumes) the StorageClass, PVs and
 * claims, then bound pods "bound-N", then pending pods "pod-N"; an
 * upstream test case in the order of its steps (its init pods are
 * "init-N"). */
ms_rc ms_generate(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                  ms_error *err);

/* scheduler_perf's test cases by their upstream names
 * (generator_upstream.c): whether SHAPE is one, their names for messages,
 * and the objects of one. */
bool ms_generator_is_upstream(const char *shape);
const char *ms_generator_upstream_names(void);
ms_rc ms_generate_upstream(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                           ms_error *err);

/* The storage objects of shape volumes (generator_volumes.c). */
/* scheduler_perf's DRA test case, by its upstream name (generator_dra.c). */
#define MS_SHAPE_DRA "SchedulingWithResourceClaimTemplate"
ms_rc ms_generate_dra(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                      ms_error *err);

ms_rc ms_generate_volumes(const ms_generator_spec *g, const ms_decoder *d, const ms_generator_sink *sink,
                          ms_error *err);

#endif
