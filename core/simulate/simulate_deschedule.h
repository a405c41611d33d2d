/* `simulate --deschedule POLICY`: a descheduling pass over a cluster file
 * (after its pending pods are placed), with placement-aware evictions: each
 * eviction a strategy plans is tried on the simulated scheduler first (the
 * pod leaves, its replacement is scheduled with the pod's profile), and
 * kept only when the replacement lands on another node without a new
 * violation of the same strategy. Prints utilisation before, every move
 * and every skip with its reason, and utilisation after. */
#ifndef MOONSCHED_SIMULATE_SIMULATE_DESCHEDULE_H
#define MOONSCHED_SIMULATE_SIMULATE_DESCHEDULE_H

#include <stdint.h>
#include <stdio.h>

#include "moonsched/error.h"
#include "moonsched/namespaces.h"
#include "moonsched/node.h"
#include "moonsched/nodeinfo.h"
#include "moonsched/pdb.h"
#include "moonsched/pod.h"
#include "moonsched/simulate.h"

/* A PriorityClass of the cluster: what DefaultEvictor's
 * priorityThreshold.name resolves against. */
typedef struct ms_priority_class {
    ms_str name;
    int32_t value;
} ms_priority_class;

typedef struct ms_deschedule_sim_options {
    ms_interner *in;
    FILE *out;
    FILE *diag;                    /* a line per Lua policy that failed */
    ms_output_format output;
    const char *policy_file;
    double now;                    /* the pass's clock (pod ages) */
    ms_node *const *nodes;
    uint32_t nnodes;
    ms_pod *const *pods;           /* bound pods */
    uint32_t npods;
    ms_pdb *const *pdbs;           /* for DefaultEvictor's PodsWithoutPDB */
    uint32_t npdbs;
    ms_namespace *const *namespaces;   /* for DefaultEvictor's namespaceLabelSelector */
    uint32_t nnamespaces;
    const ms_priority_class *priority_classes;   /* for priorityThreshold.name */
    uint32_t npriority_classes;
    /* The pod is deleted and its replacement scheduled: the node it went
     * to, or MS_STR_NONE with why (n bytes). */
    ms_str (*move)(void *ctx, const ms_pod *pod, char *why, size_t n);
    /* Takes a move back: the replacement goes, the pod is back. */
    void (*undo)(void *ctx, const ms_pod *pod);
    /* A claim's storage class (protectedStorageClasses): false when the
     * claim is not known. */
    bool (*claim_class)(void *ctx, ms_str ns, ms_str claim, ms_str *cls);
    /* The scheduler's NodeInfo of a node now (replacements included). */
    const ms_node_info *(*live)(void *ctx, ms_str node);
    void *ctx;
    /* Against a real cluster: the evictions and timings go here. NULL:
     * a simulation. */
    const ms_deschedule_hooks *hooks;
} ms_deschedule_sim_options;

typedef struct ms_deschedule_sim_result {
    uint32_t evicted, skipped;
    /* The profiles' Lua policies (deschedule, evictable): calls, failed
     * calls and times disabled, as simulate's exit status counts them. */
    uint64_t policy_calls, policy_failures, policy_disabled;
} ms_deschedule_sim_result;

/* simulate's line for a policy that failed calls or was disabled, for
 * scheduling and descheduling policies alike; nothing when neither. */
struct ms_policy;
void ms_simulate_policy_trouble(FILE *f, const char *plugin, const char *profile, const struct ms_policy *p);

ms_rc ms_deschedule_simulation(const ms_deschedule_sim_options *o, ms_deschedule_sim_result *r,
                               ms_error *err);

#endif
