/* A descheduler strategy (upstream's Deschedule and Balance plugins): its
 * name, the extension points it implements, how its args are decoded and
 * validated, and what it does in a pass. The registry lists them. */
#ifndef MOONSCHED_DESCHEDULER_PLUGIN_H
#define MOONSCHED_DESCHEDULER_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "descheduler/args.h"
#include "moonsched/error.h"
#include "moonsched/nodeinfo.h"

struct ms_desched_pass;

typedef struct ms_desched_plugin_def {
    const char *name;
    bool deschedule, balance;
    size_t args_size;
    /* Fills *out (args_size bytes, zeroed) from args (NULL: none given),
     * defaults applied; validation errors go to ms_desched_args_invalid. */
    ms_rc (*decode)(ms_desched_args_ctx *c, const cJSON *args, void *out);
    /* One run over the pass's nodes: evicts through ms_desched_evict. */
    void (*run)(const void *args, struct ms_desched_pass *ps);
    /* Optional: why placing p on `target` (as it is with p placed there)
     * would be a new violation of this strategy, or NULL. Placement-aware
     * evictions skip such moves. */
    const char *(*target_violation)(const void *args, const struct ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target);
} ms_desched_plugin_def;

/* The strategy of that name, or NULL. */
const ms_desched_plugin_def *ms_desched_plugin_find(const char *name);
/* The plugin name (a strategy or DefaultEvictor) a misspelt one most
 * likely meant, or NULL. */
const char *ms_desched_plugin_suggest(const char *name);

extern const ms_desched_plugin_def ms_desched_remove_pods_violating_node_taints;
extern const ms_desched_plugin_def ms_desched_remove_pods_violating_node_affinity;
extern const ms_desched_plugin_def ms_desched_pod_life_time;
extern const ms_desched_plugin_def ms_desched_remove_failed_pods;
extern const ms_desched_plugin_def ms_desched_remove_pods_having_too_many_restarts;
extern const ms_desched_plugin_def ms_desched_remove_duplicates;
extern const ms_desched_plugin_def ms_desched_remove_pods_violating_inter_pod_anti_affinity;
extern const ms_desched_plugin_def ms_desched_remove_pods_violating_topology_spread_constraint;
extern const ms_desched_plugin_def ms_desched_low_node_utilization;
extern const ms_desched_plugin_def ms_desched_high_node_utilization;

#endif
