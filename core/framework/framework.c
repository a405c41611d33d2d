/* A profile's framework: its plugins built from the configuration, and the
 * runners of each extension point with upstream's semantics. */
#include "framework/runners.h"
#include "base/clock.h"
#include "framework/plugins/builtin.h"
#include "framework/metrics_recorder.h"
#include "framework/node_memo.h"
#include "moonsched/framework.h"

#include <stdio.h>
#include <string.h>

/* Upstream's cap on a Permit wait (maxTimeout, 15 minutes). */
#define MAX_PERMIT_TIMEOUT 900.0

static bool implements(const ms_plugin_ops *o, ms_extension_point ep) {
    switch (ep) {
    case MS_EP_PRE_ENQUEUE: return o->pre_enqueue != NULL;
    case MS_EP_QUEUE_SORT: return o->less != NULL;
    case MS_EP_PRE_FILTER: return o->pre_filter != NULL;
    case MS_EP_FILTER: return o->filter != NULL || o->filter_batch != NULL;
    case MS_EP_POST_FILTER: return o->post_filter != NULL;
    case MS_EP_PRE_SCORE: return o->pre_score != NULL;
    case MS_EP_SCORE: return o->score != NULL;
    case MS_EP_RESERVE: return o->reserve != NULL || o->unreserve != NULL;
    case MS_EP_PERMIT: return o->permit != NULL;
    case MS_EP_PRE_BIND: return o->pre_bind != NULL;
    case MS_EP_BIND: return o->bind != NULL;
    case MS_EP_POST_BIND: return o->post_bind != NULL;
    case MS_EP_COUNT: break;
    }
    return false;
}

/* upstream's interface names, for "does not extend" errors. */
static const char *const point_interface[MS_EP_COUNT] = {
    [MS_EP_PRE_ENQUEUE] = "PreEnqueuePlugin",
    [MS_EP_QUEUE_SORT] = "QueueSortPlugin",
    [MS_EP_PRE_FILTER] = "PreFilterPlugin",
    [MS_EP_FILTER] = "FilterPlugin",
    [MS_EP_POST_FILTER] = "PostFilterPlugin",
    [MS_EP_PRE_SCORE] = "PreScorePlugin",
    [MS_EP_SCORE] = "ScorePlugin",
    [MS_EP_RESERVE] = "ReservePlugin",
    [MS_EP_PERMIT] = "PermitPlugin",
    [MS_EP_PRE_BIND] = "PreBindPlugin",
    [MS_EP_BIND] = "BindPlugin",
    [MS_EP_POST_BIND] = "PostBindPlugin",
};

static const ms_plugin_ops *find_ops(const char *name, const ms_plugin_ops *const *oot,
                                     uint32_t noot) {
    for (uint32_t i = 0; i < noot; i++)
        if (oot[i] && strcmp(oot[i]->name, name) == 0) return oot[i];
    return ms_plugin_lookup(name);
}

/* A plugin's ops, or `candidate` in place of `live` (a policy checked
 * against the version it is about to run). */
typedef struct ops_swap {
    const ms_plugin_ops *live, *candidate;
} ops_swap;

static const ms_plugin_ops *ops_of(const ms_framework *fw, uint32_t i, const ops_swap *sw) {
    const ms_plugin_ops *o = fw->plugins[i].ops;
    return sw && o == sw->live ? sw->candidate : o;
}

/* The config's order for a point, then any plugin enabled there that the
 * order missed (hand-built configs), keeping only plugins that implement it. */
static uint8_t derive_order(const ms_framework *fw, const ms_profile_config *pc,
                            ms_extension_point ep, const ops_swap *sw,
                            uint8_t order[MS_MAX_PLUGINS]) {
    uint32_t bit = 1u << ep;
    uint64_t seen = 0;
    uint8_t n = 0;
    for (uint32_t k = 0; k < pc->norder[ep] && k < MS_MAX_PLUGINS; k++) {
        uint32_t i = pc->order[ep][k];
        if (i >= fw->nplugins || (seen >> i & 1)) continue;
        seen |= 1ull << i;
        if (implements(ops_of(fw, i, sw), ep)) order[n++] = (uint8_t)i;
    }
    for (uint32_t i = 0; i < fw->nplugins; i++) {
        if ((seen >> i & 1) || !(pc->plugins[i].points & bit)) continue;
        if (implements(ops_of(fw, i, sw), ep)) order[n++] = (uint8_t)i;
    }
    return n;
}

/* What ms_framework_init checks once the plugins exist: a plugin named at
 * a point must implement it, Score weights are positive, one QueueSort,
 * at least one Bind. */
static ms_rc check_points(const ms_framework *fw, const ms_profile_config *pc, const ops_swap *sw,
                          uint8_t order[MS_EP_COUNT][MS_MAX_PLUGINS], const uint8_t norder[MS_EP_COUNT],
                          ms_error *err) {
    const char *profile = pc->scheduler_name;
    for (uint32_t i = 0; i < fw->nplugins && i < pc->nplugins; i++) {
        const ms_plugin_config *cfg = &pc->plugins[i];
        const ms_plugin_ops *ops = ops_of(fw, i, sw);
        /* Named at a point (not through multiPoint) it cannot serve: a
         * configuration mistake, as upstream says. */
        for (int ep = 0; ep < MS_EP_COUNT; ep++)
            if ((cfg->explicit_points & (1u << ep)) && !implements(ops, (ms_extension_point)ep))
                return ms_error_set(err, MS_EINVAL, "profile \"%s\": plugin \"%s\" does not extend %s "
                                    "plugin", profile, cfg->name, point_interface[ep]);
    }
    for (uint32_t k = 0; k < norder[MS_EP_SCORE]; k++) {
        const ms_framework_plugin *p = &fw->plugins[order[MS_EP_SCORE][k]];
        if (p->weight < 1)
            return ms_error_set(err, MS_EINVAL, "profile \"%s\": score plugin \"%s\" has weight %d, "
                                "it must be positive", profile, p->ops->name, (int)p->weight);
    }
    if (norder[MS_EP_QUEUE_SORT] != 1)
        return ms_error_set(err, MS_EINVAL, norder[MS_EP_QUEUE_SORT]
                            ? "profile \"%s\": only one queue sort plugin can be enabled"
                            : "profile \"%s\": no queue sort plugin is enabled", profile);
    if (norder[MS_EP_BIND] == 0)
        return ms_error_set(err, MS_EINVAL, "profile \"%s\": at least one bind plugin is needed",
                            profile);
    return MS_OK;
}

/* Filters whose verdict reads a NodeInfo's node, pod count and built-in
 * requests only (NodeResourcesFit reads scalar requests too, but only for
 * a pod that requests a scalar resource). */
static bool reads_node_and_requests(const ms_plugin_ops *o) {
    return o == &ms_plugin_node_resources_fit || o == &ms_plugin_node_name ||
           o == &ms_plugin_node_unschedulable || o == &ms_plugin_taint_toleration ||
           o == &ms_plugin_node_affinity;
}

static ms_rc derive(ms_framework *fw, const ms_profile_config *pc, const ops_swap *sw, bool commit,
                    ms_error *err) {
    uint8_t order[MS_EP_COUNT][MS_MAX_PLUGINS];
    uint8_t norder[MS_EP_COUNT];
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        norder[ep] = derive_order(fw, pc, (ms_extension_point)ep, sw, order[ep]);
    ms_rc rc = check_points(fw, pc, sw, order, norder, err);
    if (rc != MS_OK || !commit) return rc;
    memcpy(fw->order, order, sizeof order);
    memcpy(fw->norder, norder, sizeof norder);
    for (uint32_t i = 0; i < fw->nplugins; i++) fw->plugins[i].points = 0;
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        for (uint32_t k = 0; k < norder[ep]; k++) fw->plugins[order[ep][k]].points |= 1u << ep;
    fw->batch_filters = 0;
    fw->pre_filter_extensions = 0;
    fw->pod_reading_filters = 0;
    for (uint32_t k = 0; k < norder[MS_EP_PRE_FILTER]; k++) {
        const ms_plugin_ops *o = fw->plugins[order[MS_EP_PRE_FILTER][k]].ops;
        if (o->add_pod || o->remove_pod) fw->pre_filter_extensions |= 1ull << order[MS_EP_PRE_FILTER][k];
    }
    for (uint32_t k = 0; k < norder[MS_EP_FILTER]; k++) {
        const ms_plugin_ops *o = fw->plugins[order[MS_EP_FILTER][k]].ops;
        if (!o->filter && o->filter_batch) fw->batch_filters |= 1ull << order[MS_EP_FILTER][k];
        if (!reads_node_and_requests(o)) fw->pod_reading_filters |= 1ull << order[MS_EP_FILTER][k];
    }
    return MS_OK;
}

ms_rc ms_framework_check_ops(const ms_framework *fw, const ms_profile_config *pc,
                             const ms_plugin_ops *live, const ms_plugin_ops *candidate,
                             const char **queue_sort, ms_error *err) {
    ops_swap sw = {live, candidate};
    uint8_t order[MS_MAX_PLUGINS];
    if (queue_sort) {
        *queue_sort = "";
        if (derive_order(fw, pc, MS_EP_QUEUE_SORT, &sw, order) > 0)
            *queue_sort = ops_of(fw, order[0], &sw)->name;
    }
    return derive((ms_framework *)fw, pc, &sw, false, err);
}

ms_rc ms_framework_refresh_points(ms_framework *fw, const ms_profile_config *pc, ms_error *err) {
    return derive(fw, pc, NULL, true, err);
}

bool ms_framework_runs(const ms_framework *fw, const ms_plugin_ops *ops) {
    for (uint32_t i = 0; i < fw->nplugins; i++)
        if (fw->plugins[i].ops == ops) return true;
    return false;
}

ms_rc ms_framework_init(ms_framework *fw, const ms_profile_config *pc, int32_t global_pct,
                        const ms_handle *h, ms_error *err) {
    return ms_framework_init_with(fw, pc, global_pct, h, NULL, 0, err);
}

ms_rc ms_framework_init_with(ms_framework *fw, const ms_profile_config *pc, int32_t global_pct,
                             const ms_handle *h, const ms_plugin_ops *const *out_of_tree,
                             uint32_t n_out_of_tree, ms_error *err) {
    memset(fw, 0, sizeof *fw);
    snprintf(fw->scheduler_name, sizeof fw->scheduler_name, "%s", pc->scheduler_name);
    fw->h = h;
    fw->percentage_of_nodes_to_score =
        pc->percentage_of_nodes_to_score < 0 ? global_pct : pc->percentage_of_nodes_to_score;
    const char *profile = pc->scheduler_name;
    ms_rc rc = MS_OK;

    for (uint32_t i = 0; i < n_out_of_tree; i++)
        if (out_of_tree[i] && ms_plugin_lookup(out_of_tree[i]->name)) {
            rc = ms_error_set(err, MS_EINVAL, "profile \"%s\": a plugin named \"%s\" already exists",
                              profile, out_of_tree[i]->name);
            goto fail;
        }
    if (pc->nplugins > MS_MAX_PLUGINS) {
        rc = ms_error_set(err, MS_EINVAL, "profile \"%s\": %u plugins, at most %d", profile,
                          pc->nplugins, MS_MAX_PLUGINS);
        goto fail;
    }
    for (uint32_t i = 0; i < pc->nplugins; i++) {
        const ms_plugin_config *cfg = &pc->plugins[i];
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(pc->plugins[j].name, cfg->name) == 0) {
                rc = ms_error_set(err, MS_EINVAL, "profile \"%s\": plugin \"%s\" is listed twice",
                                  profile, cfg->name);
                goto fail;
            }
        const ms_plugin_ops *ops = find_ops(cfg->name, out_of_tree, n_out_of_tree);
        if (!ops) {
            rc = ms_error_set(err, MS_EINVAL, "profile \"%s\": plugin \"%s\" does not exist", profile,
                              cfg->name);
            goto fail;
        }
        /* Named at a point (not through multiPoint) it cannot serve: a
         * configuration mistake, as upstream says. */
        for (int ep = 0; ep < MS_EP_COUNT; ep++)
            if ((cfg->explicit_points & (1u << ep)) && !implements(ops, (ms_extension_point)ep)) {
                rc = ms_error_set(err, MS_EINVAL, "profile \"%s\": plugin \"%s\" does not extend %s "
                                  "plugin", profile, cfg->name, point_interface[ep]);
                goto fail;
            }
        ms_framework_plugin *p = &fw->plugins[i];
        p->ops = ops;
        p->weight = cfg->weight == 0 ? 1 : cfg->weight;
        p->self = ops->ctx;
        if (ops->create) {
            rc = ops->create(cfg->args, h, &p->self, err);
            if (rc != MS_OK) {
                ms_error_prefix(err, "profile \"%s\": initializing plugin \"%s\"", profile,
                                cfg->name);
                p->ops = NULL;
                goto fail;
            }
        }
        fw->nplugins = i + 1;
    }
    rc = derive(fw, pc, NULL, true, err);
    if (rc != MS_OK) goto fail;
    return MS_OK;

fail:
    ms_framework_destroy(fw);
    return rc;
}

void ms_framework_destroy(ms_framework *fw) {
    for (uint32_t i = 0; i < fw->nplugins; i++) {
        ms_framework_plugin *p = &fw->plugins[i];
        if (p->ops && p->ops->destroy && p->self) p->ops->destroy(p->self);
        p->self = NULL;
    }
    fw->nplugins = 0;
    memset(fw->norder, 0, sizeof fw->norder);
}

ms_rc ms_framework_begin_cycle(const ms_framework *fw, ms_cycle *c) {
    c->h = fw->h;
    c->fw = fw;
    c->skip_filter = 0;
    c->skip_score = 0;
    c->dry = c->dry_base = c->dry_seq = 0;
    c->current = 0;
    c->state = MS_ARENA_NEW(c->arena, void *, fw->nplugins ? fw->nplugins : 1);
    return c->state ? MS_OK : MS_ENOMEM;
}

/* Unschedulable, UnschedulableAndUnresolvable and Pending reject the pod;
 * anything else that is not Success is an Error (upstream's IsRejected). */
/* Sampled cycles time each plugin call (framework/metrics_recorder.h);
 * the others pay a flag test. c->sample implies c->rec. */
static inline double plugin_start(const ms_cycle *c) { return c->sample ? ms_clock_monotonic() : 0; }
static inline void plugin_done(const ms_cycle *c, ms_extension_point ep, uint32_t i, ms_code code, double t0) {
    if (c->sample) ms_metrics_recorder_plugin(c->rec, ep, i, code, ms_clock_monotonic() - t0);
}
/* upstream's plugin_evaluation_total, for the points that are not per node. */
static inline void evaluated(const ms_cycle *c, ms_extension_point ep, uint32_t i, uint64_t n) {
    if (c->rec) c->rec->evaluations[ep][i] += n;
}

static bool is_rejected(ms_code code) {
    return code == MS_UNSCHEDULABLE || code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE ||
           code == MS_PENDING;
}

static ms_code fail_status(ms_status *st, ms_code code, uint32_t plugin) {
    st->code = (uint8_t)(is_rejected(code) ? code : MS_ERROR);
    st->plugin = (int16_t)plugin;
    return (ms_code)st->code;
}

static ms_code error_status(ms_status *st, int32_t plugin, const char *reason) {
    ms_status_set(st, MS_ERROR, reason);
    st->plugin = (int16_t)plugin;
    return MS_ERROR;
}

ms_code ms_framework_run_pre_filter(const ms_framework *fw, ms_cycle *c, ms_status *st) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_PRE_FILTER]; k++) {
        uint32_t i = fw->order[MS_EP_PRE_FILTER][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        c->current = i;
        st->nreasons = 0;
        evaluated(c, MS_EP_PRE_FILTER, i, 1);
        double t0 = plugin_start(c);
        ms_code code = p->ops->pre_filter(p->self, c, st);
        plugin_done(c, MS_EP_PRE_FILTER, i, code, t0);
        if (code == MS_SKIP) {
            c->skip_filter |= 1ull << i;
            continue;
        }
        if (code != MS_SUCCESS) return fail_status(st, code, i);
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

ms_code ms_framework_run_pre_filter_extension_slow(const ms_framework *fw, ms_cycle *c, bool add,
                                                   ms_pod *const *pods, uint32_t n,
                                                   const ms_node_info *ni, ms_status *st) {
    const uint64_t ext = fw->pre_filter_extensions & ~c->skip_filter;
    for (uint32_t k = 0; n && k < fw->norder[MS_EP_PRE_FILTER]; k++) {
        const uint32_t i = fw->order[MS_EP_PRE_FILTER][k];
        if (!(ext >> i & 1)) continue;
        const ms_framework_plugin *p = &fw->plugins[i];
        ms_code (*f)(void *, ms_cycle *, ms_pod *const *, uint32_t, const ms_node_info *, ms_status *) =
            add ? p->ops->add_pod : p->ops->remove_pod;
        if (!f) continue;
        c->current = i;
        st->nreasons = 0;
        ms_code code = f(p->self, c, pods, n, ni, st);
        if (code != MS_SUCCESS) return fail_status(st, code, i);
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

ms_code ms_framework_run_filter(const ms_framework *fw, ms_cycle *c, const ms_node_info *ni,
                                ms_status *st) {
    /* Runs for every node a cycle visits: the order is read once (stores
     * through c and st could alias the framework's uint8_t arrays), and a
     * skipped plugin costs one bit test. */
    const uint64_t skip = c->skip_filter;
    const uint8_t *order = fw->order[MS_EP_FILTER];
    const uint32_t n = fw->norder[MS_EP_FILTER];
    /* Preemption's dry runs call this for every victim tried: a cycle
     * that is not sampled for metrics runs the plain loop. */
    const bool sample = c->sample;
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = order[k];
        if (skip >> i & 1) continue;
        const ms_framework_plugin *p = &fw->plugins[i];
        ms_code (*filter)(void *, ms_cycle *, const ms_node_info *, ms_status *) = p->ops->filter;
        /* Batch-only plugins run in ms_framework_run_filter_batch. */
        if (!filter) continue;
        c->current = i;
        st->nreasons = 0;
        ms_code code;
        if (sample) {
            double t0 = plugin_start(c);
            code = filter(p->self, c, ni, st);
            plugin_done(c, MS_EP_FILTER, i, code, t0);
        } else {
            code = filter(p->self, c, ni, st);
        }
        if (code != MS_SUCCESS) return fail_status(st, code, i);
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

void ms_framework_filter_plan(const ms_framework *fw, const ms_cycle *c, ms_filter_plan *plan) {
    plan->n = 0;
    for (uint32_t k = 0; k < fw->norder[MS_EP_FILTER]; k++) {
        uint32_t i = fw->order[MS_EP_FILTER][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        if ((c->skip_filter >> i & 1) || !p->ops->filter) continue;
        plan->steps[plan->n].filter = p->ops->filter;
        plan->steps[plan->n].self = p->self;
        plan->steps[plan->n].plugin = i;
        plan->n++;
    }
}

ms_code ms_framework_filter_failed(ms_status *st, ms_code code, uint32_t plugin) {
    return fail_status(st, code, plugin);
}

ms_code ms_framework_run_filter_batch_node(const ms_framework *fw, ms_cycle *c,
                                           const ms_node_info *ni, ms_status *st) {
    const uint64_t batch = fw->batch_filters & ~c->skip_filter;
    for (uint32_t k = 0; k < fw->norder[MS_EP_FILTER]; k++) {
        const uint32_t i = fw->order[MS_EP_FILTER][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        /* The ops are read again: a reload rewires them before the points
         * are derived anew. */
        if (!(batch >> i & 1) || p->ops->filter || !p->ops->filter_batch) continue;
        /* The batch interface takes a mutable array; the plugin only
         * reads the node. One node: no scratch arrays from the arena. */
        ms_node_info *one[1] = {(ms_node_info *)ni};
        ms_status out;
        ms_status_ok(&out);
        c->current = i;
        ms_code code = p->ops->filter_batch(p->self, c, one, 1, &out);
        ms_code verdict = code == MS_SUCCESS ? (ms_code)out.code : MS_ERROR;
        if (verdict != MS_SUCCESS) {
            *st = out;
            return fail_status(st, verdict, i);
        }
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

bool ms_framework_has_filter_batch(const ms_framework *fw) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_FILTER]; k++) {
        const ms_framework_plugin *p = &fw->plugins[fw->order[MS_EP_FILTER][k]];
        if (!p->ops->filter && p->ops->filter_batch) return true;
    }
    return false;
}

ms_code ms_framework_run_filter_batch(const ms_framework *fw, ms_cycle *c,
                                      ms_node_info *const *nodes, uint32_t n,
                                      ms_status *statuses) {
    ms_node_info **live = NULL;
    uint32_t *where = NULL;
    ms_status *out = NULL;
    ms_code result = MS_SUCCESS;
    for (uint32_t k = 0; k < fw->norder[MS_EP_FILTER]; k++) {
        uint32_t i = fw->order[MS_EP_FILTER][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        if ((c->skip_filter >> i & 1) || p->ops->filter || !p->ops->filter_batch) continue;
        if (!live) {
            live = MS_ARENA_NEW(c->arena, ms_node_info *, n ? n : 1);
            where = MS_ARENA_NEW(c->arena, uint32_t, n ? n : 1);
            out = MS_ARENA_NEW(c->arena, ms_status, n ? n : 1);
            if (!live || !where || !out) {
                for (uint32_t j = 0; j < n; j++)
                    if (statuses[j].code == MS_SUCCESS)
                        error_status(&statuses[j], -1, "out of memory");
                return MS_ERROR;
            }
        }
        /* Only the nodes every plugin so far let through. */
        uint32_t m = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (statuses[j].code != MS_SUCCESS) continue;
            live[m] = nodes[j];
            where[m++] = j;
        }
        if (m == 0) break;
        c->current = i;
        evaluated(c, MS_EP_FILTER, i, m);
        double t0 = plugin_start(c);
        ms_code code = p->ops->filter_batch(p->self, c, live, m, out);
        plugin_done(c, MS_EP_FILTER, i, code, t0);
        for (uint32_t j = 0; j < m; j++) {
            ms_status *st = &statuses[where[j]];
            ms_code one = code == MS_SUCCESS ? (ms_code)out[j].code : MS_ERROR;
            if (one == MS_SUCCESS) continue;
            *st = out[j];
            fail_status(st, one, i);
        }
        if (code != MS_SUCCESS) {
            result = MS_ERROR;
            break;
        }
    }
    return result;
}

ms_code ms_framework_run_post_filter(const ms_framework *fw, ms_cycle *c,
                                     const ms_status *statuses, ms_str *nominated,
                                     ms_status *st) {
    *nominated = MS_STR_NONE;
    ms_status_set(st, MS_UNSCHEDULABLE, NULL);
    st->plugin = -1;
    for (uint32_t k = 0; k < fw->norder[MS_EP_POST_FILTER]; k++) {
        uint32_t i = fw->order[MS_EP_POST_FILTER][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        ms_status one;
        ms_status_ok(&one);
        ms_str node = MS_STR_NONE;
        c->current = i;
        double t0 = plugin_start(c);
        ms_code code = p->ops->post_filter(p->self, c, statuses, &node, &one);
        plugin_done(c, MS_EP_POST_FILTER, i, code, t0);
        if (code == MS_SUCCESS) {
            *nominated = node;
            *st = one;
            st->code = MS_SUCCESS;
            st->plugin = (int16_t)i;
            return MS_SUCCESS;
        }
        if (code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE || !is_rejected(code)) {
            *st = one;
            return fail_status(st, code, i);
        }
        /* Unschedulable: the next plugin may still help; keep every reason
         * and the first plugin that rejected. */
        for (uint32_t r = 0; r < one.nreasons; r++) ms_status_add_reason(st, one.reasons[r]);
        if (st->plugin < 0) st->plugin = (int16_t)i;
    }
    return MS_UNSCHEDULABLE;
}

ms_code ms_framework_run_pre_score(const ms_framework *fw, ms_cycle *c,
                                   ms_node_info *const *nodes, uint32_t n, ms_status *st) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_PRE_SCORE]; k++) {
        uint32_t i = fw->order[MS_EP_PRE_SCORE][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        c->current = i;
        st->nreasons = 0;
        evaluated(c, MS_EP_PRE_SCORE, i, 1);
        double t0 = plugin_start(c);
        ms_code code = p->ops->pre_score(p->self, c, nodes, n, st);
        plugin_done(c, MS_EP_PRE_SCORE, i, code, t0);
        if (code == MS_SKIP) {
            c->skip_score |= 1ull << i;
            continue;
        }
        /* Any PreScore failure is an error: the pod already fits somewhere. */
        if (code != MS_SUCCESS) return fail_status(st, MS_ERROR, i);
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

/* The raw scores of node-local plugins for the nodes whose entries in m
 * do not hold (m->armed), written into m; *nstale: how many there were.
 * Their entries are noted by the caller once every plugin succeeded. */
static ms_code score_stale(const ms_framework *fw, ms_cycle *c, ms_node_memo *m,
                           ms_node_info *const *nodes, const uint32_t *at, uint32_t n,
                           uint32_t **stale_out, uint32_t *nstale, ms_status *st) {
    uint32_t *stale = MS_ARENA_NEW(c->arena, uint32_t, n);
    if (!stale) return error_status(st, -1, "out of memory");
    uint32_t ns = 0;
    for (uint32_t j = 0; j < n; j++)
        if (!ms_node_memo_holds(&m->scored[at[j]], nodes[j], m->score_epoch)) stale[ns++] = j;
    *stale_out = stale;
    *nstale = ns;
    if (!ns) return MS_SUCCESS;
    ms_node_info **sub = MS_ARENA_NEW(c->arena, ms_node_info *, ns);
    int64_t *tmp = MS_ARENA_NEW(c->arena, int64_t, ns);
    if (!sub || !tmp) return error_status(st, -1, "out of memory");
    for (uint32_t t = 0; t < ns; t++) {
        sub[t] = nodes[stale[t]];
        m->sum[at[stale[t]]] = 0;
    }
    for (uint32_t k = 0; k < fw->norder[MS_EP_SCORE]; k++) {
        uint32_t i = fw->order[MS_EP_SCORE][k];
        if (!(m->score_plugins >> i & 1)) continue;
        c->current = i;
        st->nreasons = 0;
        double t0 = plugin_start(c);
        ms_code code = fw->plugins[i].ops->score(fw->plugins[i].self, c, sub, ns, tmp, st);
        plugin_done(c, MS_EP_SCORE, i, code, t0);
        if (code != MS_SUCCESS) return fail_status(st, MS_ERROR, i);
        int64_t *row = m->raw + (size_t)k * m->cap;
        for (uint32_t t = 0; t < ns; t++) row[at[stale[t]]] = tmp[t];
        if (fw->plugins[i].ops->normalize_score) continue;
        /* The final score is checked once here, when it is computed: the
         * sum says when one was out of range, and the pass then takes the
         * rows one by one to fail as the runner without the memo does. */
        for (uint32_t t = 0; t < ns; t++) {
            int64_t *sum = &m->sum[at[stale[t]]];
            if (*sum == MS_NODE_MEMO_OUT_OF_RANGE) continue;
            *sum = tmp[t] < MS_MIN_NODE_SCORE || tmp[t] > MS_MAX_NODE_SCORE
                       ? MS_NODE_MEMO_OUT_OF_RANGE
                       : *sum + tmp[t] * fw->plugins[i].weight;
        }
    }
    return MS_SUCCESS;
}

/* The weighted sums of the summed plugins (m->summed) of the n nodes into
 * totals; false when one of them has a score out of range. */
static bool add_sums(const ms_node_memo *m, const uint32_t *at, uint32_t n, int64_t *totals) {
    bool out = false;
    for (uint32_t j = 0; j < n; j++) {
        int64_t v = m->sum[at[j]];
        out |= v == MS_NODE_MEMO_OUT_OF_RANGE;
        totals[j] = v;
    }
    return !out;
}

static ms_code run_score(const ms_framework *fw, ms_cycle *c, ms_node_memo *m, ms_node_info *const *nodes,
                         const uint32_t *at, uint32_t n, int64_t *totals, int64_t *per_plugin,
                         ms_status *st) {
    ms_status_ok(st);
    if (n == 0) return MS_SUCCESS;
    /* The first plugin that runs sets the totals, the others add to them:
     * clearing them first costs a pass over n for nothing. */
    bool first = true;
    int64_t *buf = NULL;
    if (!per_plugin) {
        buf = MS_ARENA_NEW(c->arena, int64_t, n);
        if (!buf) return error_status(st, -1, "out of memory");
    }
    uint32_t *stale = NULL, nstale = 0;
    if (m) {
        /* The memo's rows go by position in the Score order, which a
         * policy reload may shift: the positions are part of the key. */
        uint64_t local = 0, layout = 0, summed = 0;
        for (uint32_t k = 0; k < fw->norder[MS_EP_SCORE]; k++) {
            uint32_t i = fw->order[MS_EP_SCORE][k];
            const ms_framework_plugin *p = &fw->plugins[i];
            if (!(c->skip_score >> i & 1) && p->ops->node_local) {
                local |= 1ull << i;
                if (!p->ops->normalize_score) summed |= 1ull << i;
                /* the weight too: the sums hold weighted scores */
                layout = (layout * 1000003u + (i << 8 | k) + 1) * 1000003u + (uint64_t)(uint32_t)p->weight;
            }
        }
        if (local != m->score_plugins || layout != m->score_layout) {
            m->score_plugins = local;
            m->score_layout = layout;
            m->score_epoch++;
        }
        ms_code code = score_stale(fw, c, m, nodes, at, n, &stale, &nstale, st);
        if (code != MS_SUCCESS) return code;
        m->summed = 0;
        if (summed && add_sums(m, at, n, totals)) {
            m->summed = summed;
            first = false;
        }
    }
    for (uint32_t k = 0; k < fw->norder[MS_EP_SCORE]; k++) {
        uint32_t i = fw->order[MS_EP_SCORE][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        int64_t *scores = per_plugin ? per_plugin + (size_t)k * n : buf;
        /* A skipped plugin's row is left as it is: readers of one node's
         * scores ask ms_framework_score_skipped, readers of all of them
         * clear the rows with ms_framework_clear_skipped_scores. */
        if (c->skip_score >> i & 1) continue;
        c->current = i;
        st->nreasons = 0;
        evaluated(c, MS_EP_SCORE, i, 1);
        ms_code code = MS_SUCCESS;
        double t0 = 0;
        if (m && (m->summed >> i & 1)) {
            /* in the sums already: its row is not written */
            plugin_done(c, MS_EP_SCORE, i, MS_SUCCESS, plugin_start(c));
            continue;
        } else if (m && (m->score_plugins >> i & 1) && !p->ops->normalize_score) {
            /* The raw score is the final one: one pass takes it from the
             * memo, checks, weighs and adds it (one unsigned comparison
             * checks the range, from 0). Reached when a sum says a score
             * is out of range, for the error of the runner without it. */
            _Static_assert(MS_MIN_NODE_SCORE == 0, "the range check assumes a minimum of 0");
            const int64_t *row = m->raw + (size_t)k * m->cap;
            const int64_t w = p->weight;
            bool out = false;
            for (uint32_t j = 0; j < n; j++) {
                int64_t v = row[at[j]];
                out |= (uint64_t)v > MS_MAX_NODE_SCORE;
                scores[j] = v * w;
                totals[j] = first ? scores[j] : totals[j] + scores[j];
            }
            plugin_done(c, MS_EP_SCORE, i, MS_SUCCESS, plugin_start(c));
            if (out)
                return error_status(st, (int32_t)i, "plugin returned a score outside [0, 100] "
                                           "after normalizing");
            first = false;
            continue;
        } else if (m && (m->score_plugins >> i & 1)) {
            const int64_t *row = m->raw + (size_t)k * m->cap;
            for (uint32_t j = 0; j < n; j++) scores[j] = row[at[j]];
            t0 = plugin_start(c);
        } else {
            t0 = plugin_start(c);
            code = p->ops->score(p->self, c, nodes, n, scores, st);
        }
        if (code == MS_SUCCESS && p->ops->normalize_score) code = p->ops->normalize_score(p->self, c, scores, n, st);
        plugin_done(c, MS_EP_SCORE, i, code, t0);
        if (code != MS_SUCCESS) return fail_status(st, MS_ERROR, i);
        for (uint32_t j = 0; j < n; j++) {
            if (scores[j] < MS_MIN_NODE_SCORE || scores[j] > MS_MAX_NODE_SCORE)
                return error_status(st, (int32_t)i, "plugin returned a score outside [0, 100] "
                                           "after normalizing");
            scores[j] *= p->weight;
            totals[j] = first ? scores[j] : totals[j] + scores[j];
        }
        first = false;
    }
    if (first) memset(totals, 0, (size_t)n * sizeof *totals);
    for (uint32_t t = 0; t < nstale; t++) ms_node_memo_note(&m->scored[at[stale[t]]], nodes[stale[t]], m->score_epoch);
    ms_status_ok(st);
    return MS_SUCCESS;
}

ms_code ms_framework_run_score(const ms_framework *fw, ms_cycle *c, ms_node_info *const *nodes,
                               uint32_t n, int64_t *totals, int64_t *per_plugin, ms_status *st) {
    return run_score(fw, c, NULL, nodes, NULL, n, totals, per_plugin, st);
}

ms_code ms_framework_run_score_memo(const ms_framework *fw, ms_cycle *c, ms_node_memo *m,
                                    ms_node_info *const *nodes, const uint32_t *at, uint32_t n,
                                    int64_t *totals, int64_t *per_plugin, ms_status *st) {
    bool use = m->armed && fw->norder[MS_EP_SCORE] <= m->rows;
    m->summed = 0;
    return run_score(fw, c, use ? m : NULL, nodes, at, n, totals, per_plugin, st);
}

bool ms_framework_score_skipped(const ms_framework *fw, const ms_cycle *c, uint32_t k) {
    return c->skip_score >> fw->order[MS_EP_SCORE][k] & 1;
}

void ms_framework_clear_skipped_scores(const ms_framework *fw, const ms_cycle *c,
                                       int64_t *per_plugin, uint32_t n) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_SCORE]; k++)
        if (ms_framework_score_skipped(fw, c, k))
            memset(per_plugin + (size_t)k * n, 0, (size_t)n * sizeof *per_plugin);
}

ms_code ms_framework_run_reserve(const ms_framework *fw, ms_cycle *c, ms_str node, ms_status *st) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_RESERVE]; k++) {
        uint32_t i = fw->order[MS_EP_RESERVE][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        if (!p->ops->reserve) continue;
        c->current = i;
        st->nreasons = 0;
        double t0 = plugin_start(c);
        ms_code code = p->ops->reserve(p->self, c, node, st);
        plugin_done(c, MS_EP_RESERVE, i, code, t0);
        if (code != MS_SUCCESS) {
            fail_status(st, code, i);
            ms_framework_run_unreserve(fw, c, node);
            return (ms_code)st->code;
        }
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

void ms_framework_run_unreserve(const ms_framework *fw, ms_cycle *c, ms_str node) {
    for (uint32_t k = fw->norder[MS_EP_RESERVE]; k-- > 0;) {
        uint32_t i = fw->order[MS_EP_RESERVE][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        if (!p->ops->unreserve) continue;
        c->current = i;
        p->ops->unreserve(p->self, c, node);
    }
}

ms_code ms_framework_run_permit(const ms_framework *fw, ms_cycle *c, ms_str node,
                                double *timeout, ms_status *st) {
    bool wait = false;
    double min_wait = MAX_PERMIT_TIMEOUT;
    *timeout = 0;
    for (uint32_t k = 0; k < fw->norder[MS_EP_PERMIT]; k++) {
        uint32_t i = fw->order[MS_EP_PERMIT][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        double t = 0;
        c->current = i;
        st->nreasons = 0;
        double t0 = plugin_start(c);
        ms_code code = p->ops->permit(p->self, c, node, &t, st);
        plugin_done(c, MS_EP_PERMIT, i, code, t0);
        if (code == MS_SUCCESS) continue;
        if (code == MS_WAIT) {
            wait = true;
            if (t < min_wait) min_wait = t;
            continue;
        }
        return fail_status(st, code, i);
    }
    if (wait) {
        *timeout = min_wait < 0 ? 0 : min_wait;
        ms_status_set(st, MS_WAIT, "one or more plugins asked to wait and no plugin rejected pod");
        st->plugin = -1;
        return MS_WAIT;
    }
    ms_status_ok(st);
    return MS_SUCCESS;
}

ms_code ms_framework_run_pre_bind(const ms_framework *fw, ms_cycle *c, ms_str node,
                                  uint32_t *next, double *timeout, ms_status *st) {
    for (uint32_t k = *next; k < fw->norder[MS_EP_PRE_BIND]; k++) {
        uint32_t i = fw->order[MS_EP_PRE_BIND][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        st->nreasons = 0;
        c->current = i;
        /* -1 on entry: the deadline of this plugin's wait has passed. */
        double wait = k == *next ? *timeout : 0;
        ms_code code = p->ops->pre_bind(p->self, c, node, &wait, st);
        if (code == MS_WAIT) {
            /* The plugin is called again, from this one on. */
            *next = k;
            *timeout = wait;
            st->code = MS_WAIT;
            st->plugin = (int16_t)i;
            return MS_WAIT;
        }
        if (code != MS_SUCCESS) return fail_status(st, code, i);
    }
    *next = fw->norder[MS_EP_PRE_BIND];
    ms_status_ok(st);
    return MS_SUCCESS;
}

ms_code ms_framework_run_bind(const ms_framework *fw, const ms_pod *pod, ms_str node,
                              ms_status *st) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_BIND]; k++) {
        uint32_t i = fw->order[MS_EP_BIND][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        st->nreasons = 0;
        ms_code code = p->ops->bind(p->self, pod, node, st);
        if (code == MS_SKIP) continue;
        if (code != MS_SUCCESS) return fail_status(st, code, i);
        ms_status_ok(st);
        st->plugin = (int16_t)i;
        return MS_SUCCESS;
    }
    ms_status_set(st, MS_SKIP, NULL);
    st->plugin = -1;
    return MS_SKIP;
}

void ms_framework_run_post_bind(const ms_framework *fw, const ms_pod *pod, ms_str node) {
    for (uint32_t k = 0; k < fw->norder[MS_EP_POST_BIND]; k++) {
        const ms_framework_plugin *p = &fw->plugins[fw->order[MS_EP_POST_BIND][k]];
        p->ops->post_bind(p->self, pod, node);
    }
}

bool ms_framework_less(void *ctx, const ms_queued_pod *a, const ms_queued_pod *b) {
    const ms_framework *fw = ctx;
    const ms_framework_plugin *p = &fw->plugins[fw->order[MS_EP_QUEUE_SORT][0]];
    return p->ops->less(p->self, a, b);
}

bool ms_framework_pre_enqueue(const ms_framework *fw, const ms_pod *pod, const char **reason,
                              int32_t *plugin) {
    const char *dummy = NULL;
    int32_t ignored;
    if (!reason) reason = &dummy;
    if (!plugin) plugin = &ignored;
    *reason = NULL;
    *plugin = -1;
    for (uint32_t k = 0; k < fw->norder[MS_EP_PRE_ENQUEUE]; k++) {
        uint32_t i = fw->order[MS_EP_PRE_ENQUEUE][k];
        const ms_framework_plugin *p = &fw->plugins[i];
        if (!p->ops->pre_enqueue(p->self, pod, reason)) {
            *plugin = (int32_t)i;
            return false;
        }
    }
    return true;
}

ms_event_mask ms_framework_interest(const ms_framework *fw, uint64_t plugins) {
    if (plugins == 0) return MS_EV_ALL;
    ms_event_mask m = 0;
    for (uint32_t i = 0; i < fw->nplugins; i++) {
        if (!(plugins >> i & 1)) continue;
        ms_event_mask ev = fw->plugins[i].ops->events;
        m |= ev ? ev : MS_EV_ALL;
    }
    return m ? m : MS_EV_ALL;
}

bool ms_framework_queueing_hint(const ms_framework *fw, uint64_t plugins, const ms_pod *pod, ms_event_mask ev,
                                const void *old_obj, const void *new_obj) {
    if (plugins == 0) return true;
    for (uint32_t i = 0; i < fw->nplugins && i < 64; i++) {
        if (!(plugins >> i & 1)) continue;
        const ms_framework_plugin *p = &fw->plugins[i];
        ms_event_mask reg = p->ops->events ? p->ops->events : MS_EV_ALL;
        if (!(reg & ev)) continue;
        if (!p->ops->queueing_hint || p->ops->queueing_hint(p->self, pod, ev, old_obj, new_obj)) return true;
    }
    return false;
}

uint32_t ms_framework_nscore(const ms_framework *fw) { return fw->norder[MS_EP_SCORE]; }

const char *ms_framework_score_name(const ms_framework *fw, uint32_t k) {
    if (k >= fw->norder[MS_EP_SCORE]) return "";
    return fw->plugins[fw->order[MS_EP_SCORE][k]].ops->name;
}

const char *ms_framework_plugin_name(const ms_framework *fw, int32_t index) {
    if (index < 0 || (uint32_t)index >= fw->nplugins) return "";
    return fw->plugins[index].ops->name;
}
