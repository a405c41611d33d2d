/* LowNodeUtilization: nodes whose usage is under `thresholds` for every
 * resource are underutilized, nodes over `targetThresholds` for some
 * resource are overutilized; pods move off the overutilized nodes (the
 * busiest first) while they stay over target and the underutilized ones
 * have room under their targets. useDeviationThresholds makes both
 * relative to the average usage; numberOfNodes is how many underutilized
 * nodes it takes to act. */
#include <stdlib.h>

#include "descheduler/plugins/node_utilization.h"

typedef struct low_args {
    ms_nu_thresholds thresholds, targets;
    bool deviation;
    int64_t number_of_nodes;
    ms_desched_strs excluded;
} low_args;

static void validate(ms_desched_args_ctx *c, const low_args *a, const char *terr, const char *gerr) {
    if (terr) return ms_desched_args_invalid(c, "thresholds config is not valid: %s", terr);
    if (gerr) return ms_desched_args_invalid(c, "targetThresholds config is not valid: %s", gerr);
    if (a->thresholds.n != a->targets.n)
        return ms_desched_args_invalid(c, "thresholds and targetThresholds configured different resources");
    for (uint32_t i = 0; i < a->thresholds.n; i++) {
        double target = ms_nu_threshold(&a->targets, a->thresholds.name[i], -1);
        if (target < 0)
            return ms_desched_args_invalid(c, "thresholds and targetThresholds configured different resources");
        if (a->thresholds.percent[i] > target && !a->deviation)
            return ms_desched_args_invalid(c, "thresholds' %s percentage is greater than targetThresholds'",
                                           ms_str_get(c->in, a->thresholds.name[i]));
    }
}

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    low_args *a = out;
    const char *terr = NULL, *gerr = NULL;
    char b1[128], b2[128];
    ms_rc rc;
    uint32_t before = c->nerrs;
    if ((rc = ms_nu_evictable_namespaces(c, args, &a->excluded)) != MS_OK ||
        (rc = ms_json_bool(c->r, "useDeviationThresholds", ms_json_get(args, "useDeviationThresholds"),
                           &a->deviation)) != MS_OK ||
        (rc = ms_json_int(c->r, "numberOfNodes", ms_json_get(args, "numberOfNodes"), INT32_MIN, INT32_MAX,
                          &a->number_of_nodes)) != MS_OK ||
        (rc = ms_nu_thresholds_decode(c, args, "thresholds", &a->thresholds, &terr, b1, sizeof b1)) != MS_OK ||
        (rc = ms_nu_thresholds_decode(c, args, "targetThresholds", &a->targets, &gerr, b2, sizeof b2)) != MS_OK)
        return rc;
    for (const char *const *k = (const char *const[]){"metricsUtilization", "evictionLimits", NULL}; *k; k++)
        if (args && ms_json_get(args, *k)) return ms_json_fail(c->r, *k, "not supported");
    /* upstream stops at the first problem of these args */
    if (c->nerrs == before) validate(c, a, terr, gerr);
    return MS_OK;
}

/* Still over target on some resource, and room left on every one. */
static bool keep_going(const ms_nu *u, const ms_nu_node *src, const double *room) {
    bool above = false;
    for (uint32_t r = 0; r < u->nres; r++) {
        if (room[r] < 1) return false;
        above |= src->available[r] < src->usage[r];
    }
    return above;
}

static void balance(const low_args *a, ms_nu *u) {
    ms_nu_node **low = malloc(sizeof *low * (u->nnodes + 1)), **high = malloc(sizeof *high * (u->nnodes + 1));
    uint32_t nlow = 0, nhigh = 0;
    if (!low || !high) {
        u->ps->failed = true;
    } else {
        for (uint32_t i = 0; i < u->nnodes; i++) {
            ms_nu_node *n = &u->nodes[i];
            if (!n->ni->node->unschedulable && ms_nu_below_low(u, n)) low[nlow++] = n;
            else if (ms_nu_above_high(u, n)) high[nhigh++] = n;
        }
        /* Nothing to do: no room, not enough room, everything idle, or
         * nothing over target (upstream's four early returns). */
        if (nlow && (int64_t)nlow > a->number_of_nodes && nlow != u->nnodes && nhigh) {
            ms_nu_sort_by_usage(high, nhigh, false);
            ms_nu_evict(u, high, nhigh, low, nlow, &a->excluded, keep_going,
                        "node is over its target utilization");
        }
    }
    free(low);
    free(high);
}

static void run(const void *args, ms_desched_pass *ps) {
    const low_args *a = args;
    ms_nu u;
    if (ms_nu_init(&u, ps, &a->thresholds) != 0) {
        ps->failed = true;
        ms_nu_free(&u);
        return;
    }
    if (a->deviation) ms_nu_deviation_thresholds(&u, &a->thresholds, &a->targets);
    else ms_nu_static_thresholds(&u, &a->thresholds, &a->targets);
    balance(a, &u);
    ms_nu_free(&u);
}

static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    const low_args *a = args;
    (void)p;
    /* Relative thresholds move with the average: only static ones are
     * checked here. */
    return !a->deviation && ms_nu_node_over(ps, &a->targets, target)
               ? "it would make the node it lands on overutilized"
               : NULL;
}

const ms_desched_plugin_def ms_desched_low_node_utilization = {
    .name = "LowNodeUtilization",
    .balance = true,
    .args_size = sizeof(low_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
