/* The shared part of LowNodeUtilization and HighNodeUtilization: usage,
 * thresholds, classification and the eviction loop, as upstream's
 * nodeutilization package does them with requests (not live metrics). */
#include "descheduler/plugins/node_utilization.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/toleration.h"

ms_rc ms_nu_thresholds_decode(ms_desched_args_ctx *c, const cJSON *args, const char *key,
                              ms_nu_thresholds *out, const char **err_text, char *buf, size_t n) {
    memset(out, 0, sizeof *out);
    *err_text = NULL;
    const cJSON *map = ms_json_get(args, key);
    ms_rc rc = ms_json_expect(c->r, key, map, MS_JSON_OBJECT);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(c->r, key);
    const cJSON *it;
    cJSON_ArrayForEach(it, map) {
        double v = 0;
        if ((rc = ms_json_number(c->r, it->string, it, MS_JSON_NUMBER, &v)) != MS_OK) return rc;
        if (out->n == MS_NU_MAX_RESOURCES - 3) return ms_json_fail(c->r, it->string, "too many resources");
        out->name[out->n] = ms_intern_cstr(c->in, it->string);
        out->percent[out->n++] = v;
        if ((v < 0 || v > 100) && !*err_text) {
            snprintf(buf, n, "%s threshold not in [0, 100] range", it->string);
            *err_text = buf;
        }
    }
    ms_json_pop(c->r, saved);
    if (!out->n && !*err_text) *err_text = "no resource threshold is configured";
    return MS_OK;
}

/* evictableNamespaces: only `exclude` (upstream refuses `include`). */
ms_rc ms_nu_evictable_namespaces(ms_desched_args_ctx *c, const cJSON *args, ms_desched_strs *out) {
    ms_desched_pod_scope scope = {0};
    uint32_t before = c->nerrs;
    ms_rc rc = ms_desched_args_namespaces(c, args, "evictableNamespaces", &scope);
    if (rc != MS_OK) return rc;
    if (scope.include.n && c->nerrs == before)
        ms_desched_args_invalid(c, "only Exclude namespaces can be set, inclusion is not supported");
    *out = scope.exclude;
    return MS_OK;
}

double ms_nu_threshold(const ms_nu_thresholds *t, ms_str name, double absent) {
    for (uint32_t i = 0; i < t->n; i++)
        if (t->name[i] == name) return t->percent[i];
    return absent;
}

static double node_percent(const ms_desched_pass *ps, const ms_node_info *ni, ms_str name) {
    double used = (double)ms_resources_get(&ni->requested, &ps->rn, name);
    double cap = (double)ms_resources_get(&ni->node->allocatable, &ps->rn, name);
    return cap > 0 ? used / cap * 100 : 0;
}

bool ms_nu_node_over(const ms_desched_pass *ps, const ms_nu_thresholds *t, const ms_node_info *ni) {
    for (uint32_t i = 0; i < t->n; i++)
        if (node_percent(ps, ni, t->name[i]) > t->percent[i]) return true;
    return false;
}

bool ms_nu_node_over_deviation(const ms_desched_pass *ps, const ms_nu_thresholds *t, const ms_node_info *ni) {
    for (uint32_t i = 0; i < t->n && ps->nnodes; i++) {
        double avg = 0;
        for (uint32_t k = 0; k < ps->nnodes; k++) avg += node_percent(ps, ms_desched_live_node(ps, k), t->name[i]);
        double high = avg / ps->nnodes + t->percent[i];
        if (node_percent(ps, ni, t->name[i]) > (high > 100 ? 100 : high)) return true;
    }
    return false;
}

static void add_resource(ms_nu *u, ms_str name) {
    for (uint32_t i = 0; i < u->nres; i++)
        if (u->res[i] == name) return;
    u->res[u->nres++] = name;
}

static double pod_amount(const ms_nu *u, const ms_pod *p, uint32_t r) {
    if (u->res[r] == u->ps->rn.builtin[MS_RES_PODS]) return 1;
    return (double)ms_resources_get(&p->requests, &u->ps->rn, u->res[r]);
}

int ms_nu_init(ms_nu *u, ms_desched_pass *ps, const ms_nu_thresholds *configured) {
    memset(u, 0, sizeof *u);
    u->ps = ps;
    for (uint32_t i = 0; i < configured->n; i++) add_resource(u, configured->name[i]);
    u->nconfigured = u->nres;
    add_resource(u, ps->rn.builtin[MS_RES_CPU]);
    add_resource(u, ps->rn.builtin[MS_RES_MEMORY]);
    add_resource(u, ps->rn.builtin[MS_RES_PODS]);
    u->nodes = calloc(ps->nnodes ? ps->nnodes : 1, sizeof *u->nodes);
    if (!u->nodes) return -1;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_nu_node *n = &u->nodes[u->nnodes++];
        n->ni = ps->nodes[i];
        for (uint32_t r = 0; r < u->nres; r++) {
            for (uint32_t k = 0; k < n->ni->npods; k++)
                if (!ms_pod_is_terminal(n->ni->pods[k])) n->usage[r] += pod_amount(u, n->ni->pods[k], r);
            n->capacity[r] = (double)ms_resources_get(&n->ni->node->allocatable, &ps->rn, u->res[r]);
            n->percent[r] = n->capacity[r] > 0 ? n->usage[r] / n->capacity[r] * 100 : 0;
            n->available[r] = n->capacity[r];
        }
    }
    return 0;
}

void ms_nu_free(ms_nu *u) {
    free(u->nodes);
    memset(u, 0, sizeof *u);
}

static void set_thresholds(ms_nu *u, ms_nu_node *n, uint32_t r, double low, double high) {
    n->low[r] = low < 0 ? 0 : low;
    n->high[r] = high > 100 ? 100 : high;
    if (high >= 0) n->available[r] = n->capacity[r] * n->high[r] / 100;
    (void)u;
}

void ms_nu_static_thresholds(ms_nu *u, const ms_nu_thresholds *low, const ms_nu_thresholds *high) {
    for (uint32_t i = 0; i < u->nnodes; i++)
        for (uint32_t r = 0; r < u->nconfigured; r++)
            set_thresholds(u, &u->nodes[i], r, ms_nu_threshold(low, u->res[r], 0),
                           high ? ms_nu_threshold(high, u->res[r], 100) : 100);
}

void ms_nu_deviation_thresholds(ms_nu *u, const ms_nu_thresholds *low, const ms_nu_thresholds *high) {
    for (uint32_t r = 0; r < u->nconfigured; r++) {
        double avg = 0;
        for (uint32_t i = 0; i < u->nnodes; i++) avg += u->nodes[i].percent[r];
        if (u->nnodes) avg /= u->nnodes;
        for (uint32_t i = 0; i < u->nnodes; i++)
            set_thresholds(u, &u->nodes[i], r, avg - ms_nu_threshold(low, u->res[r], 0),
                           avg + ms_nu_threshold(high, u->res[r], 0));
    }
}

bool ms_nu_below_low(const ms_nu *u, const ms_nu_node *n) {
    for (uint32_t r = 0; r < u->nconfigured; r++)
        if (n->low[r] < n->percent[r]) return false;
    return true;
}

bool ms_nu_above_high(const ms_nu *u, const ms_nu_node *n) {
    for (uint32_t r = 0; r < u->nconfigured; r++)
        if (n->high[r] < n->percent[r]) return true;
    return false;
}

static double total_usage(const ms_nu_node *n) {
    double t = 0;
    for (uint32_t r = 0; r < MS_NU_MAX_RESOURCES; r++) t += n->usage[r];
    return t;
}

void ms_nu_sort_by_usage(ms_nu_node **nodes, uint32_t n, bool ascending) {
    /* Insertion sort: stable, and the node lists are short next to the
     * pods each one holds. */
    for (uint32_t i = 1; i < n; i++) {
        ms_nu_node *x = nodes[i];
        double tx = total_usage(x);
        uint32_t j = i;
        while (j > 0 && (ascending ? total_usage(nodes[j - 1]) > tx : total_usage(nodes[j - 1]) < tx)) {
            nodes[j] = nodes[j - 1];
            j--;
        }
        nodes[j] = x;
    }
}

/* upstream's PodToleratesTaints: every taint of at least one destination. */
static bool tolerates_some_destination(const ms_pod *p, ms_nu_node **dests, uint32_t ndests) {
    for (uint32_t d = 0; d < ndests; d++) {
        const ms_node *n = dests[d]->ni->node;
        bool all = p->ntolerations >= n->ntaints;
        for (uint32_t t = 0; all && t < n->ntaints; t++)
            all = ms_tolerations_tolerate_taint(p->tolerations, p->ntolerations, &n->taints[t]);
        if (all) return true;
    }
    return false;
}

/* One source node: its removable pods in order, while keep_going. false
 * when the total limit ends the whole loop. */
/* upstream's withResourceRequestForAny. The pod keeps its summed
 * requests, not each container's: a request of 0 counts as none here,
 * where upstream counts the key written. */
static bool requests_configured(const ms_nu *u, const ms_pod *p) {
    for (uint32_t r = 0; r < u->nconfigured; r++)
        if (ms_resources_get(&p->requests, &u->ps->rn, u->res[r]) > 0) return true;
    return false;
}

static bool evict_from(ms_nu *u, ms_nu_node *src, ms_nu_node **dests, uint32_t ndests, double *room,
                       const ms_desched_strs *excluded, ms_nu_continue_fn keep_going, const char *reason) {
    ms_desched_pass *ps = u->ps;
    ms_node_info *ni = src->ni;
    ms_pod **pods = malloc(sizeof *pods * (ni->npods ? ni->npods : 1));
    if (!pods) {
        ps->failed = true;
        return false;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < ni->npods; k++)
        if (!ms_pod_is_terminal(ni->pods[k])) pods[n++] = ni->pods[k];
    ms_desched_sort_low_priority_first(pods, n);
    bool go_on = true;
    for (uint32_t k = 0; k < n && keep_going(u, src, room); k++) {
        ms_pod *p = pods[k];
        if (excluded && ms_desched_strs_has(excluded, p->meta.namespace_)) continue;
        if (u->only_thresholding && !requests_configured(u, p)) continue;
        if (!tolerates_some_destination(p, dests, ndests) || !ms_desched_pod_filter(ps, NULL, p, ni->name))
            continue;
        ms_evict_result r = ms_desched_evict(ps, p, ni->name, reason);
        if (r == MS_EVICT_TOTAL_LIMIT) go_on = false;
        if (r == MS_EVICT_TOTAL_LIMIT || r == MS_EVICT_NODE_LIMIT) break;
        if (r != MS_EVICTED) continue;
        for (uint32_t x = 0; x < u->nres; x++) {
            double amount = pod_amount(u, p, x);
            src->usage[x] -= amount;
            src->percent[x] = src->capacity[x] > 0 ? src->usage[x] / src->capacity[x] * 100 : 0;
            room[x] -= amount;
        }
    }
    free(pods);
    return go_on;
}

void ms_nu_evict(ms_nu *u, ms_nu_node **sources, uint32_t nsources, ms_nu_node **dests,
                 uint32_t ndests, const ms_desched_strs *excluded_namespaces,
                 ms_nu_continue_fn keep_going, const char *reason) {
    double room[MS_NU_MAX_RESOURCES] = {0};
    for (uint32_t d = 0; d < ndests; d++)
        for (uint32_t r = 0; r < u->nres; r++) room[r] += dests[d]->available[r] - dests[d]->usage[r];
    for (uint32_t s = 0; s < nsources; s++)
        if (!evict_from(u, sources[s], dests, ndests, room, excluded_namespaces, keep_going, reason)) return;
}
