/* HighNodeUtilization: the opposite of LowNodeUtilization, for bin
 * packing. Nodes under `thresholds` for every resource are emptied (the
 * least used first) onto the other schedulable nodes while those have
 * room, so that the scheduler (with a MostAllocated score) packs the pods
 * tighter and the idle nodes can go. */
#include <stdlib.h>
#include <string.h>

#include "descheduler/plugins/node_utilization.h"

typedef struct high_args {
    ms_nu_thresholds thresholds;
    int64_t number_of_nodes;
    ms_desched_strs excluded;
    bool only_thresholding;   /* evictionModes: [OnlyThresholdingResources] */
} high_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    high_args *a = out;
    const char *terr = NULL;
    char buf[128];
    ms_desched_strs modes = {0};
    ms_rc rc;
    uint32_t before = c->nerrs;
    if ((rc = ms_nu_evictable_namespaces(c, args, &a->excluded)) != MS_OK ||
        (rc = ms_json_int(c->r, "numberOfNodes", ms_json_get(args, "numberOfNodes"), INT32_MIN, INT32_MAX,
                          &a->number_of_nodes)) != MS_OK ||
        (rc = ms_nu_thresholds_decode(c, args, "thresholds", &a->thresholds, &terr, buf, sizeof buf)) != MS_OK ||
        (rc = ms_desched_args_strs(c, args, "evictionModes", &modes)) != MS_OK)
        return rc;
    if (c->nerrs != before) return MS_OK;
    if (terr) {
        ms_desched_args_invalid(c, "%s", terr);
        return MS_OK;
    }
    for (uint32_t i = 0; i < modes.n; i++)
        if (strcmp(ms_str_get(c->in, modes.v[i]), "OnlyThresholdingResources") != 0) {
            ms_desched_args_invalid(c, "invalid eviction mode %s", ms_str_get(c->in, modes.v[i]));
            break;
        }
    a->only_thresholding = modes.n > 0;
    return MS_OK;
}

static bool keep_going(const ms_nu *u, const ms_nu_node *src, const double *room) {
    (void)src;
    for (uint32_t r = 0; r < u->nres; r++)
        if (room[r] < 1) return false;
    return true;
}

static void balance(const high_args *a, ms_nu *u) {
    ms_nu_node **src = malloc(sizeof *src * (u->nnodes + 1)), **dst = malloc(sizeof *dst * (u->nnodes + 1));
    uint32_t nsrc = 0, ndst = 0;
    if (!src || !dst) {
        u->ps->failed = true;
    } else {
        for (uint32_t i = 0; i < u->nnodes; i++) {
            ms_nu_node *n = &u->nodes[i];
            if (ms_nu_below_low(u, n)) src[nsrc++] = n;
            else if (!n->ni->node->unschedulable) dst[ndst++] = n;
        }
        if (nsrc && (int64_t)nsrc > a->number_of_nodes && nsrc != u->nnodes && ndst) {
            ms_nu_sort_by_usage(src, nsrc, true);
            ms_nu_evict(u, src, nsrc, dst, ndst, &a->excluded, keep_going, "node is underutilized");
        }
    }
    free(src);
    free(dst);
}

static void run(const void *args, ms_desched_pass *ps) {
    const high_args *a = args;
    ms_nu u;
    if (ms_nu_init(&u, ps, &a->thresholds) != 0) {
        ps->failed = true;
        ms_nu_free(&u);
        return;
    }
    ms_nu_static_thresholds(&u, &a->thresholds, NULL);
    u.only_thresholding = a->only_thresholding;
    balance(a, &u);
    ms_nu_free(&u);
}

static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    const high_args *a = args;
    (void)p;
    return !ms_nu_node_over(ps, &a->thresholds, target) ? "it would land on another underutilized node" : NULL;
}

const ms_desched_plugin_def ms_desched_high_node_utilization = {
    .name = "HighNodeUtilization",
    .balance = true,
    .args_size = sizeof(high_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
