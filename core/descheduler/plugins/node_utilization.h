/* What LowNodeUtilization and HighNodeUtilization share (upstream's
 * nodeutilization package): thresholds in percent of allocatable per
 * resource, each node's usage (the requests of its pods), the
 * classification of nodes against thresholds, and the eviction loop that
 * moves pods off source nodes while the destinations have room. */
#ifndef MOONSCHED_DESCHEDULER_PLUGINS_NODE_UTILIZATION_H
#define MOONSCHED_DESCHEDULER_PLUGINS_NODE_UTILIZATION_H

#include "descheduler/pass.h"
#include "descheduler/plugin.h"

/* cpu, memory, pods and the configured ones. */
#define MS_NU_MAX_RESOURCES 12

typedef struct ms_nu_thresholds {
    uint32_t n;
    ms_str name[MS_NU_MAX_RESOURCES];
    double percent[MS_NU_MAX_RESOURCES];
} ms_nu_thresholds;

/* Reads a ResourceThresholds map ("cpu: 20"), checking each percentage
 * is in [0, 100] ("<name> threshold not in [0, 100] range") and that the
 * map is not empty ("no resource threshold is configured"); *err_text
 * gets the first problem, or NULL. */
ms_rc ms_nu_thresholds_decode(ms_desched_args_ctx *c, const cJSON *args, const char *key,
                              ms_nu_thresholds *out, const char **err_text, char *buf, size_t n);
/* evictableNamespaces: only `exclude` ("only Exclude namespaces can be
 * set, inclusion is not supported"). */
ms_rc ms_nu_evictable_namespaces(ms_desched_args_ctx *c, const cJSON *args, ms_desched_strs *out);
double ms_nu_threshold(const ms_nu_thresholds *t, ms_str name, double absent);

/* A NodeInfo's requests against thresholds, in percent of allocatable:
 * some resource over them (not over: every one at or under them). */
bool ms_nu_node_over(const ms_desched_pass *ps, const ms_nu_thresholds *t, const ms_node_info *ni);
/* The same against thresholds relative to the average usage of the
 * pass's nodes as they are now (useDeviationThresholds: average plus t,
 * at most 100). */
bool ms_nu_node_over_deviation(const ms_desched_pass *ps, const ms_nu_thresholds *t, const ms_node_info *ni);

/* One node under balancing. */
typedef struct ms_nu_node {
    ms_node_info *ni;
    double usage[MS_NU_MAX_RESOURCES];      /* requested, canonical units */
    double capacity[MS_NU_MAX_RESOURCES];   /* allocatable */
    double percent[MS_NU_MAX_RESOURCES];    /* usage / capacity * 100 */
    double low[MS_NU_MAX_RESOURCES], high[MS_NU_MAX_RESOURCES];   /* thresholds, percent */
    double available[MS_NU_MAX_RESOURCES];  /* capacity capped at `high` */
} ms_nu_node;

typedef struct ms_nu {
    ms_desched_pass *ps;
    uint32_t nres;
    ms_str res[MS_NU_MAX_RESOURCES];        /* resources tracked: configured + cpu, memory, pods */
    uint32_t nconfigured;                   /* the first nconfigured of res are the thresholds' */
    uint32_t nnodes;
    ms_nu_node *nodes;
    /* HighNodeUtilization's evictionModes OnlyThresholdingResources: only
     * pods requesting some configured resource are moved. */
    bool only_thresholding;
} ms_nu;

/* Usage of every node of the pass for the configured resources (plus cpu,
 * memory and pods). 0 or -1. */
int ms_nu_init(ms_nu *u, ms_desched_pass *ps, const ms_nu_thresholds *configured);
void ms_nu_free(ms_nu *u);

/* Static thresholds (low, high in percent for each configured resource;
 * high < 0: none), or thresholds relative to the average usage
 * (useDeviationThresholds). */
void ms_nu_static_thresholds(ms_nu *u, const ms_nu_thresholds *low, const ms_nu_thresholds *high);
void ms_nu_deviation_thresholds(ms_nu *u, const ms_nu_thresholds *low, const ms_nu_thresholds *high);

/* Every configured resource at or below the low threshold. */
bool ms_nu_below_low(const ms_nu *u, const ms_nu_node *n);
/* Some configured resource above the high threshold. */
bool ms_nu_above_high(const ms_nu *u, const ms_nu_node *n);

/* Moves pods off `sources` (in the given order) onto room in `dests`:
 * pods that pass the filter (and with only_thresholding request some
 * configured resource) and tolerate every taint of some destination,
 * lowest priority first (then BestEffort, Burstable, Guaranteed), while
 * `keep_going` says so. */
typedef bool (*ms_nu_continue_fn)(const ms_nu *u, const ms_nu_node *source, const double *room);
void ms_nu_evict(ms_nu *u, ms_nu_node **sources, uint32_t nsources, ms_nu_node **dests,
                 uint32_t ndests, const ms_desched_strs *excluded_namespaces,
                 ms_nu_continue_fn keep_going, const char *reason);

/* Sorts nodes by total usage (cpu in millis plus the others in units). */
void ms_nu_sort_by_usage(ms_nu_node **nodes, uint32_t n, bool ascending);

#endif
