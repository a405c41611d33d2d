/* What simulate.c shares with its outputs (simulate_table.c,
 * simulate_json.c, simulate_html.c): the run's state, each pending pod's
 * fate, the preemptions, and the formats that every output writes the same
 * way (simulate_format.c). The outputs read the state once the run is
 * over; only simulate.c changes it. */
#ifndef MOONSCHED_SIMULATE_INTERNAL_H
#define MOONSCHED_SIMULATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/map.h"
#include "moonsched/decode.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/policy_set.h"
#include "moonsched/scheduler.h"
#include "moonsched/simulate.h"
#include "moonsched/namespaces.h"
#include "api/workload.h"
#include "moonsched/pdb.h"
#include "simulate/simulate_deschedule.h"
#include "simulate/simulate_dra.h"
#include "simulate/simulate_volumes.h"

/* The fate of one pending pod, as last reported. */
typedef struct placement {
    ms_pod *pod;                   /* referenced */
    ms_str node;                   /* MS_STR_NONE: not placed */
    bool scored;
    bool preempted;                /* placed, then evicted by a preemptor */
    bool gated;                    /* held back by its spec.schedulingGates */
    int64_t total;
    uint32_t feasible, num_all_nodes;
    uint32_t nscores;
    int64_t *scores;               /* nscores weighted scores (heap) */
    const char *const *names;      /* the profile's score plugin names */
    char *message;                 /* heap: why it is not placed */
} placement;

/* One victim of a preemption, in the order they went. */
typedef struct preemption {
    ms_pod *preemptor;             /* referenced */
    ms_pod *victim;                /* referenced */
    ms_str node;
    uint32_t attempt;              /* the cycle it happened in (groups victims) */
} preemption;

typedef struct kind_count {
    char kind[64];
    uint32_t n;
} kind_count;

typedef struct pending_bind {
    ms_pod *pod;                   /* referenced */
    ms_str node;
} pending_bind;

/* A node's requests before any pending pod is placed. */
typedef struct before_requests {
    int64_t v[3];
    ms_resources res;              /* heap-owned: the extended resources */
} before_requests;

typedef struct sim {
    const ms_simulate_options *o;
    FILE *out, *diag;
    ms_interner *in;
    ms_decoder dec;
    ms_scheduler *sched;
    ms_policy_set *policies;       /* NULL without Lua policies */
    double now;
    uint64_t seed;                 /* the tie-breaking seed in effect */

    ms_node **nodes;
    uint32_t nnodes, nodecap;
    ms_pod **pods;
    uint32_t npods, podcap;
    ms_namespace **nss;
    uint32_t nns, nscap;
    ms_pdb **pdbs;
    uint32_t npdbs, pdbcap;
    ms_workload **workloads;       /* Services, RCs, ReplicaSets, StatefulSets */
    uint32_t nworkloads, workloadcap;
    ms_priority_class *pcs;        /* for the descheduler's priorityThreshold.name */
    uint32_t npcs, pccap;
    ms_sim_volumes vols;           /* PVs, claims, classes, CSI objects; the volume binder */
    ms_sim_dra dra;                /* DeviceClasses, ResourceSlices, claims, claim templates */
    ms_sim_dra dra_saved;          /* the claims of the pod placed again, for an undo */
    uint32_t objects;
    const char *source;            /* the cluster file being read, for warnings */
    const cJSON *object;           /* the object being read, for warnings */
    kind_count skipped[32];
    uint32_t nskipped_kinds, nskipped;

    pending_bind *binds;
    uint32_t nbinds, bindcap;

    placement *pl;
    uint32_t npl, plcap;
    ms_map pl_index;               /* uid hash -> index + 1 */
    preemption *pre;
    uint32_t npre, precap;
    bool keep_details;             /* scores and messages are printed */

    double *lat;
    uint32_t nlat, latcap;
    /* --output html: each node's requests before the run (node name ->
     * int64_t[3]: cpu, memory, pods), kept once the cluster is fed. */
    ms_map before;
    bool oom;                      /* a reporter callback ran out of memory */
    /* While --deschedule tries replacements: a move that needs preemption
     * does not happen (a descheduler evicts one pod, never others for it). */
    bool descheduling;
    char blocked[320];             /* the first victim a replacement would have preempted */
} sim;

/* The PodScheduled condition of a gated pod, as a 1.30 API server writes it. */
#define GATED_REASON "SchedulingGated"
#define GATED_MESSAGE "Scheduling is blocked due to non-empty scheduling gates"

/* "score T: plugin S, ...; feasible F/N" of a placed pod, or why it has no score. */
void ms_sim_format_score(const placement *p, char *buf, size_t n);
/* Live NodeInfos with a Node object, sorted by name (malloc'd); NULL when
 * out of memory. */
const ms_node_info **ms_sim_sorted_nodes(sim *m, uint32_t *n);
/* hugepages-*: an extended resource counted in bytes. */
bool ms_sim_is_byte_scalar(const char *name);
/* A quantity as kubectl shows it: millicores, bytes with a binary suffix,
 * or a count (kind: MS_RES_*, or -1 for an extended resource by name). */
void ms_sim_format_quantity(int kind, const char *name, int64_t v, char *buf, size_t n);

/* The outputs; each sets m->oom when it runs out of memory. */
void ms_sim_print_table(sim *m);
void ms_sim_print_json(sim *m);
void ms_sim_print_html(sim *m);
/* --output html: the nodes' requests before any pending pod is placed,
 * into m->before. */
void ms_sim_keep_before(sim *m);
/* --output html: how many pods each of the report's views (placed pods'
 * cycles, pending pods explained) shows node by node on nnodes nodes; the
 * scheduler keeps that many placing cycles. */
uint32_t ms_sim_report_explained_pods(uint32_t nnodes);

#endif
