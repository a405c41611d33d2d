/* NodeResourcesBalancedAllocation: favours nodes whose requested fractions of
 * the configured resources (cpu and memory by default) stay close to each
 * other once the pod is placed: score = (1 - std) * MaxNodeScore. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "plugin_args.h"
#include "resource_allocation.h"

#define PLUGIN "NodeResourcesBalancedAllocation"

typedef struct balanced {
    ms_resource_allocation ra;
} balanced;

typedef struct balanced_state {
    int64_t pod_req[MS_RA_MAX_RESOURCES];
} balanced_state;

static void balanced_destroy(void *self) { free(self); }

static ms_rc balanced_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    static const char *const fields[] = {"resources", NULL};
    balanced *b = calloc(1, sizeof *b);
    if (!b) return ms_error_set(err, MS_ENOMEM, PLUGIN " args: out of memory");
    ms_resource_allocation_defaults(&b->ra, h);
    ms_rc rc = MS_OK;
    if (args && !cJSON_IsNull(args) &&
        ((rc = ms_args_check_object(args, fields, PLUGIN, "", err)) ||
         (rc = ms_resource_allocation_parse(&b->ra, cJSON_GetObjectItemCaseSensitive(args, "resources"),
                                            h, PLUGIN, "resources", err)))) {
        free(b);
        return rc;
    }
    /* ValidateNodeResourcesBalancedAllocationArgs: no duplicates, weight 1. */
    for (uint32_t i = 0; i < b->ra.n; i++) {
        for (uint32_t j = 0; j < i; j++)
            if (b->ra.res[j].name == b->ra.res[i].name) {
                rc = ms_error_set(err, MS_EINVAL,
                                  PLUGIN " args: resources[%u].name: Duplicate value: \"%s\"", i,
                                  ms_str_get(h->in, b->ra.res[i].name));
                free(b);
                return rc;
            }
        if (b->ra.res[i].weight != 1) {
            rc = ms_error_set(err, MS_EINVAL,
                              PLUGIN " args: resources[%u].weight: Invalid value: %lld: must be 1", i,
                              (long long)b->ra.res[i].weight);
            free(b);
            return rc;
        }
    }
    /* Upstream counts what pods request here, not the non-zero defaults
     * that Fit's strategies use: default requests of pods that request
     * nothing made an overloaded node look balanced. */
    b->ra.use_requested = true;
    *self = b;
    return MS_OK;
}

/* A pod that requests none of the resources would see every node as
 * equally balanced before and after: upstream skips scoring it so that
 * such pods do not pile up on one node. */
static ms_code balanced_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                  ms_status *st) {
    (void)nodes;
    (void)n;
    const balanced *b = self;
    balanced_state *s = MS_ARENA_NEW(c->arena, balanced_state, 1);
    if (!s) return ms_status_set(st, MS_ERROR, "out of memory");
    ms_resource_allocation_pod_requests(&b->ra, c->pod, s->pod_req);
    if (ms_resource_allocation_best_effort(&b->ra, s->pod_req)) return ms_status_set(st, MS_SKIP, NULL);
    c->state[c->current] = s;
    return MS_SUCCESS;
}

static int64_t balanced_score(uint32_t n, const int64_t *requested, const int64_t *allocatable) {
    double fractions[MS_RA_MAX_RESOURCES], total = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (allocatable[i] == 0) continue;
        double f = (double)requested[i] / (double)allocatable[i];
        if (f > 1) f = 1;
        total += f;
        fractions[k++] = f;
    }
    double std = 0;
    if (k == 2) {
        std = fabs((fractions[0] - fractions[1]) / 2);
    } else if (k > 2) {
        double mean = total / (double)k, sum = 0;
        for (uint32_t i = 0; i < k; i++) sum = sum + (fractions[i] - mean) * (fractions[i] - mean);
        std = sqrt(sum / (double)k);
    }
    return (int64_t)((1 - std) * (double)MS_MAX_NODE_SCORE);
}

static ms_code balanced_score_nodes(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                                    int64_t *scores, ms_status *st) {
    (void)st;
    const balanced *b = self;
    const balanced_state *s = c->state[c->current];
    int64_t fallback[MS_RA_MAX_RESOURCES];
    const int64_t *pod_req = s ? s->pod_req : fallback;
    if (!s) {
        ms_resource_allocation_pod_requests(&b->ra, c->pod, fallback);
        if (ms_resource_allocation_best_effort(&b->ra, fallback)) {
            memset(scores, 0, n * sizeof *scores);
            return MS_SUCCESS;
        }
    }
    int64_t requested[MS_RA_MAX_RESOURCES], allocatable[MS_RA_MAX_RESOURCES];
    if (ms_resource_allocation_is_cpu_memory(&b->ra)) {
        /* The default resources: balanced_score's arithmetic for two. */
        for (uint32_t i = 0; i < n; i++) {
            ms_resource_allocation_cpu_memory(&b->ra, nodes[i], pod_req, requested, allocatable);
            double std = 0;
            if (allocatable[0] != 0 && allocatable[1] != 0) {
                double f0 = (double)requested[0] / (double)allocatable[0];
                double f1 = (double)requested[1] / (double)allocatable[1];
                if (f0 > 1) f0 = 1;
                if (f1 > 1) f1 = 1;
                std = fabs((f0 - f1) / 2);
            }
            scores[i] = (int64_t)((1 - std) * (double)MS_MAX_NODE_SCORE);
        }
        return MS_SUCCESS;
    }
    for (uint32_t i = 0; i < n; i++) {
        ms_resource_allocation_node(&b->ra, nodes[i], pod_req, requested, allocatable);
        scores[i] = balanced_score(b->ra.n, requested, allocatable);
    }
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_node_resources_balanced_allocation = {
    .name = "NodeResourcesBalancedAllocation",
    /* No events: a Score plugin never rejects a pod. */
    .create = balanced_create,
    .destroy = balanced_destroy,
    .pre_score = balanced_pre_score,
    .score = balanced_score_nodes,
    .node_local = true,
};
