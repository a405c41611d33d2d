/* Shadow policies (shadow.h): built beside the profiles, evaluated after
 * a profile selected a node, counted and logged. A shadow's framework
 * holds PrioritySort and DefaultBinder (so that it passes the framework's
 * checks; neither is ever called here) and the policy at the points that
 * choose a node: PreFilter, Filter, PreScore, Score. */
#include "scheduler/shadow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "framework/runners.h"
#include "moonsched/nodeinfo.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_priv.h"

#define SHADOW_POINTS                                                                             \
    ((1u << MS_EP_PRE_FILTER) | (1u << MS_EP_FILTER) | (1u << MS_EP_PRE_SCORE) | (1u << MS_EP_SCORE))

/* Takes plugin k out of a profile configuration (its args stay borrowed). */
static void remove_plugin(ms_profile_config *p, uint32_t k) {
    memmove(&p->plugins[k], &p->plugins[k + 1], (p->nplugins - k - 1) * sizeof p->plugins[0]);
    p->nplugins--;
    for (int ep = 0; ep < MS_EP_COUNT; ep++) {
        uint8_t n = 0;
        for (uint8_t j = 0; j < p->norder[ep]; j++) {
            uint8_t idx = p->order[ep][j];
            if (idx == k) continue;
            p->order[ep][n++] = (uint8_t)(idx > k ? idx - 1 : idx);
        }
        p->norder[ep] = n;
    }
}

static ms_rc add_shadow(ms_scheduler *s, uint32_t i, const ms_profile_config *pc, const ms_plugin_config *plugin,
                        int32_t global_pct, const ms_plugin_ops *const *oot, uint32_t noot, ms_error *err) {
    ms_shadow **grown = realloc(s->shadows, (s->nshadows + 1) * sizeof *grown);
    if (!grown) return ms_error_set(err, MS_ENOMEM, "out of memory");
    s->shadows = grown;
    ms_shadow *sh = calloc(1, sizeof *sh);
    if (!sh || !(sh->log = calloc(MS_SHADOW_LOG, sizeof *sh->log))) {
        if (sh) free(sh);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    s->shadows[s->nshadows++] = sh;
    sh->profile = i;
    snprintf(sh->plugin, sizeof sh->plugin, "%s", plugin->name);
    ms_profile_config *sp = &sh->pc;
    snprintf(sp->scheduler_name, sizeof sp->scheduler_name, "%s", pc->scheduler_name);
    sp->percentage_of_nodes_to_score = pc->percentage_of_nodes_to_score;
    ms_rc rc = ms_profile_config_add(sp, "PrioritySort", 1u << MS_EP_QUEUE_SORT, 0, NULL, err);
    if (rc == MS_OK) rc = ms_profile_config_add(sp, "DefaultBinder", 1u << MS_EP_BIND, 0, NULL, err);
    if (rc == MS_OK) rc = ms_profile_config_add(sp, plugin->name, plugin->points & SHADOW_POINTS, plugin->weight,
                                                NULL, err);
    if (rc != MS_OK) return rc;
    sp->plugins[2].explicit_points = plugin->explicit_points & SHADOW_POINTS;
    rc = ms_framework_init_with(&sh->fw, sp, global_pct, &s->handle, oot, noot, err);
    if (rc != MS_OK) {
        ms_error_prefix(err, "shadow policy %s", plugin->name);
        return rc;
    }
    sh->built = true;
    return MS_OK;
}

ms_rc ms_shadow_build(ms_scheduler *s, uint32_t i, const ms_profile_config *pc, int32_t global_pct,
                      const ms_plugin_ops *const *oot, uint32_t noot, ms_profile_config *live,
                      ms_error *err) {
    *live = *pc;
    uint32_t k = 0;
    while (k < live->nplugins) {
        if (!ms_config_plugin_is_shadow(&live->plugins[k])) {
            k++;
            continue;
        }
        ms_rc rc = add_shadow(s, i, pc, &live->plugins[k], global_pct, oot, noot, err);
        if (rc != MS_OK) return rc;
        remove_plugin(live, k);
    }
    return MS_OK;
}

void ms_shadow_free_all(ms_scheduler *s) {
    for (uint32_t i = 0; i < s->nshadows; i++) {
        ms_shadow *sh = s->shadows[i];
        if (sh->built) ms_framework_destroy(&sh->fw);
        for (uint32_t k = 0; k < sh->nlog; k++) ms_str_release(s->in, sh->log[k].name);
        free(sh->log);
        free(sh);
    }
    free(s->shadows);
    s->shadows = NULL;
    s->nshadows = 0;
}

/* What one shadow pass found. */
typedef struct verdict {
    bool error;
    ms_str node;                   /* MS_STR_NONE: no node */
    int64_t live_at[2], shadow_at[2];   /* [0] the live node, [1] the shadow's */
    uint32_t kept;
    char reason[192];
} verdict;

static void join_status(const ms_framework *fw, const ms_status *st, char *buf, size_t n) {
    size_t k = (size_t)snprintf(buf, n, "%s: ", ms_framework_plugin_name(fw, st->plugin));
    for (uint32_t j = 0; j < st->nreasons && k < n; j++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", j ? ", " : "", st->reasons[j] ? st->reasons[j] : "");
}

/* The shadow's Filter over the profile's feasible nodes: the kept ones
 * into keep (their index among the feasible into idx). false on error. */
static bool shadow_filter(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, uint32_t n, uint32_t selected,
                          ms_node_info **keep, uint32_t *idx, verdict *v) {
    ms_node_info *const *nodes = s->feasible;
    ms_status *st = MS_ARENA_NEW(c->arena, ms_status, n);
    if (!st) return false;
    for (uint32_t j = 0; j < n; j++)
        if (ms_framework_run_filter(fw, c, nodes[j], &st[j]) == MS_ERROR) return false;
    if (ms_framework_has_filter_batch(fw) && ms_framework_run_filter_batch(fw, c, nodes, n, st) == MS_ERROR)
        return false;
    v->kept = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (st[j].code == MS_SUCCESS) {
            keep[v->kept] = nodes[j];
            idx[v->kept++] = j;
        } else if (j == selected) {
            join_status(fw, &st[j], v->reason, sizeof v->reason);
        }
    }
    return true;
}

/* The best combined total among the kept nodes; a tie that includes the
 * profile's node goes to it (no random draw), else to the first. */
static void choose(ms_scheduler *s, uint32_t selected, bool scored, ms_node_info *const *keep, const uint32_t *idx,
                   const int64_t *stotals, verdict *v) {
    int64_t best = 0;
    int32_t pick = -1;
    for (uint32_t j = 0; j < v->kept; j++) {
        int64_t live = scored ? s->totals[idx[j]] : 0;
        int64_t t = live + stotals[j];
        if (idx[j] == selected) {
            v->live_at[0] = live;
            v->shadow_at[0] = stotals[j];
        }
        if (pick < 0 || t > best || (t == best && idx[j] == selected)) {
            best = t;
            pick = (int32_t)j;
        }
    }
    if (pick < 0) return;
    v->node = keep[pick]->name;
    v->live_at[1] = scored ? s->totals[idx[pick]] : 0;
    v->shadow_at[1] = stotals[pick];
}

static void decide(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, uint32_t n, uint32_t selected,
                   bool scored, verdict *v) {
    ms_status st;
    ms_status_ok(&st);
    v->live_at[0] = scored ? s->totals[selected] : 0;
    if (ms_framework_begin_cycle(fw, c) != MS_OK) goto fail;
    ms_code code = ms_framework_run_pre_filter(fw, c, &st);
    if (code == MS_ERROR) goto fail;
    if (code != MS_SUCCESS) {
        join_status(fw, &st, v->reason, sizeof v->reason);
        return;
    }
    ms_node_info **keep = MS_ARENA_NEW(c->arena, ms_node_info *, n);
    uint32_t *idx = MS_ARENA_NEW(c->arena, uint32_t, n);
    int64_t *stotals = MS_ARENA_NEW(c->arena, int64_t, n);
    if (!keep || !idx || !stotals || !shadow_filter(s, fw, c, n, selected, keep, idx, v)) goto fail;
    memset(stotals, 0, n * sizeof *stotals);
    if (v->kept > 1 && fw->norder[MS_EP_SCORE] > 0 &&
        (ms_framework_run_pre_score(fw, c, keep, v->kept, &st) != MS_SUCCESS ||
         ms_framework_run_score(fw, c, keep, v->kept, stotals, NULL, &st) != MS_SUCCESS))
        goto fail;
    choose(s, selected, scored, keep, idx, stotals, v);
    return;
fail:
    v->error = true;
}

static void record(ms_interner *in, ms_shadow *sh, const ms_cycle *live, ms_str live_node, uint32_t n, const verdict *v,
                   double now) {
    if (v->node == live_node) {
        sh->agree++;
        return;
    }
    sh->disagree++;
    ms_shadow_disagreement *d = &sh->log[sh->next];
    sh->next = (sh->next + 1) % MS_SHADOW_LOG;
    if (sh->nlog < MS_SHADOW_LOG) sh->nlog++;
    else ms_str_release(in, d->name);
    ms_str_retain(in, live->pod->meta.name);
    *d = (ms_shadow_disagreement){
        .cycle = live->cycle, .time = now, .ns = live->pod->meta.namespace_, .name = live->pod->meta.name,
        .live_node = live_node, .shadow_node = v->node,
        .live_at_live = v->live_at[0], .shadow_at_live = v->shadow_at[0],
        .live_at_shadow = v->live_at[1], .shadow_at_shadow = v->shadow_at[1],
        .feasible = n, .shadow_feasible = v->kept,
    };
    snprintf(d->reason, sizeof d->reason, "%s", v->reason);
}

/* The policy answers neutrally for now (ms_plugin_ops.idle). */
static bool shadow_idle(const ms_shadow *sh) {
    for (uint32_t i = 0; i < sh->fw.nplugins; i++) {
        const ms_framework_plugin *fp = &sh->fw.plugins[i];
        if (strcmp(fp->ops->name, sh->plugin) == 0) return fp->ops->idle && fp->ops->idle(fp->self);
    }
    return false;
}

static void one_shadow(ms_scheduler *s, ms_shadow *sh, const ms_inflight *r, uint32_t n, uint32_t selected,
                       bool scored) {
    if (shadow_idle(sh)) {
        sh->skipped++;
        return;
    }
    double t0 = ms_clock_thread_cpu();
    ms_inflight *x = ms_sched_record_take(s);
    if (!x) {
        sh->errors++;
        return;
    }
    ms_cycle *c = &x->cycle;
    c->pod = r->cycle.pod;
    c->qp = r->cycle.qp;
    c->snap = &s->snap;
    c->arena = &x->arena;
    c->h = &s->handle;
    c->cycle = r->cycle.cycle;
    verdict v = {.node = MS_STR_NONE};
    decide(s, &sh->fw, c, n, selected, scored, &v);
    if (v.error) sh->errors++;
    else record(s->in, sh, &r->cycle, s->feasible[selected]->name, n, &v, s->now);
    ms_sched_record_release(s, x);
    double dt = ms_clock_thread_cpu() - t0;
    sh->cpu += dt;
    if (dt > sh->cpu_max) sh->cpu_max = dt;
}

/* After the profile selected its node, the shadows beside it judge the
 * same nodes. */
static void selected(ms_scheduler *s, const ms_inflight *r, const ms_cycle_choice *ch) {
    for (uint32_t i = 0; i < s->nshadows; i++)
        if (s->shadows[i]->profile == r->profile)
            one_shadow(s, s->shadows[i], r, ch->nfeasible, ch->selected, ch->scored);
}

const ms_cycle_observer ms_shadow_observer = {.selected = selected};

ms_rc ms_shadow_check_ops(const ms_scheduler *s, const ms_plugin_ops *live, const ms_plugin_ops *candidate,
                          ms_error *err) {
    for (uint32_t i = 0; i < s->nshadows; i++) {
        const ms_shadow *sh = s->shadows[i];
        if (!ms_framework_runs(&sh->fw, live)) continue;
        ms_rc rc = ms_framework_check_ops(&sh->fw, &sh->pc, live, candidate, NULL, err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

void ms_shadow_refresh(ms_scheduler *s, const ms_plugin_ops *ops) {
    for (uint32_t i = 0; i < s->nshadows; i++) {
        ms_shadow *sh = s->shadows[i];
        ms_error e = {0};
        /* check_ops let the version in: the points follow its hooks */
        if (ms_framework_runs(&sh->fw, ops)) (void)ms_framework_refresh_points(&sh->fw, &sh->pc, &e);
    }
}

uint32_t ms_scheduler_shadow_count(const ms_scheduler *s) { return s->nshadows; }
const ms_shadow *ms_scheduler_shadow_at(const ms_scheduler *s, uint32_t i) { return s->shadows[i]; }
const char *ms_scheduler_profile_name(const ms_scheduler *s, uint32_t i) { return s->pcs[i].scheduler_name; }

static cJSON *node_json(const ms_scheduler *s, ms_str node, int64_t live, int64_t shadow) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "node", ms_str_get(s->in, node));
    cJSON_AddNumberToObject(o, "profileScore", (double)live);
    cJSON_AddNumberToObject(o, "shadowScore", (double)shadow);
    cJSON_AddNumberToObject(o, "total", (double)(live + shadow));
    return o;
}

static cJSON *disagreement_json(const ms_scheduler *s, const ms_shadow_disagreement *d) {
    cJSON *o = cJSON_CreateObject();
    char pod[600];
    snprintf(pod, sizeof pod, "%s/%s", ms_str_get(s->in, d->ns), ms_str_get(s->in, d->name));
    cJSON_AddStringToObject(o, "pod", pod);
    cJSON_AddNumberToObject(o, "cycle", (double)d->cycle);
    ms_explain_add_time(o, d->time);
    cJSON_AddItemToObject(o, "live", node_json(s, d->live_node, d->live_at_live, d->shadow_at_live));
    if (d->shadow_node != MS_STR_NONE)
        cJSON_AddItemToObject(o, "shadow", node_json(s, d->shadow_node, d->live_at_shadow, d->shadow_at_shadow));
    else
        cJSON_AddNullToObject(o, "shadow");
    if (d->reason[0]) cJSON_AddStringToObject(o, "liveNodeRejected", d->reason);
    cJSON_AddNumberToObject(o, "feasibleNodes", d->feasible);
    cJSON_AddNumberToObject(o, "shadowFeasibleNodes", d->shadow_feasible);
    return o;
}

cJSON *ms_scheduler_shadow_json(const ms_scheduler *s) {
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "policies");
    for (uint32_t i = 0; i < s->nshadows; i++) {
        const ms_shadow *sh = s->shadows[i];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "profile", s->pcs[sh->profile].scheduler_name);
        cJSON_AddStringToObject(p, "policy", sh->plugin);
        cJSON_AddNumberToObject(p, "decisions", (double)(sh->agree + sh->disagree));
        cJSON_AddNumberToObject(p, "agree", (double)sh->agree);
        cJSON_AddNumberToObject(p, "disagree", (double)sh->disagree);
        cJSON_AddNumberToObject(p, "errors", (double)sh->errors);
        cJSON_AddNumberToObject(p, "skipped", (double)sh->skipped);
        cJSON_AddNumberToObject(p, "cpuSeconds", sh->cpu);
        cJSON_AddNumberToObject(p, "cpuMaxSeconds", sh->cpu_max);
        cJSON *log = cJSON_AddArrayToObject(p, "disagreements");
        for (uint32_t k = 0; k < sh->nlog; k++) {
            uint32_t at = (sh->next + MS_SHADOW_LOG - 1 - k) % MS_SHADOW_LOG;
            cJSON_AddItemToArray(log, disagreement_json(s, &sh->log[at]));
        }
        cJSON_AddItemToArray(arr, p);
    }
    return o;
}
