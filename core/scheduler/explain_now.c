/* ms_scheduler_explain: where a pod is, its last recorded cycle, and for a
 * pending pod every node's Filter status or weighted scores computed now,
 * on the scheduler thread, over the current snapshot. The pass runs the
 * same plugins as a cycle (PreFilter, Filter with nominated pods, the Lua
 * policies' batch Filter, PreScore, Score) but decides nothing: no
 * assume, no random choice, no preemption, the rotating start index
 * untouched, so the cycles that follow are the same with or without it.
 * HTTP extenders are not called (a request must not block on them). */
#include <stdio.h>
#include <string.h>

#include "backend/cache.h"
#include "backend/queue.h"
#include "framework/runners.h"
#include "moonsched/nodeinfo.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_priv.h"

uint64_t ms_scheduler_policy_generation(const ms_scheduler *s) { return s->policy_generation; }

typedef struct pod_lookup {
    ms_str ns, name;
    const ms_queued_pod *qp;
} pod_lookup;

static void match_queued(void *ctx, const ms_queued_pod *qp) {
    pod_lookup *l = ctx;
    if (!l->qp && qp->pod->meta.name == l->name && qp->pod->meta.namespace_ == l->ns) l->qp = qp;
}

static const char *where_name(uint8_t where, bool gated) {
    if (gated) return "gated";
    switch (where) {
    case MS_QW_ACTIVE: return "activeQ";
    case MS_QW_BACKOFF: return "backoffQ";
    case MS_QW_UNSCHEDULABLE: return "unschedulable";
    case MS_QW_IN_FLIGHT: return "inFlight";
    default: return "none";
    }
}

/* A bound or assumed pod: the node whose NodeInfo holds it. */
static const ms_pod *find_in_cache(ms_scheduler *s, ms_str ns, ms_str name) {
    uint32_t n = ms_cache_node_count(s->cache);
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = ms_cache_node_at(s->cache, i);
        for (uint32_t k = 0; ni && k < ni->npods; k++)
            if (ni->pods[k]->meta.name == name && ni->pods[k]->meta.namespace_ == ns) return ni->pods[k];
    }
    return NULL;
}

static const ms_inflight *find_binding(const ms_scheduler *s, ms_str ns, ms_str name) {
    uint64_t key;
    void *val;
    for (size_t it = 0; ms_map_next(&s->binding, &it, &key, &val);) {
        const ms_inflight *r = val;
        const ms_pod *p = r->qp ? r->qp->pod : NULL;
        if (p && p->meta.name == name && p->meta.namespace_ == ns) return r;
    }
    return NULL;
}

cJSON *ms_explain_status_json(const ms_framework *fw, const ms_status *st) {
    cJSON *f = cJSON_CreateObject();
    const char *plugin = ms_framework_plugin_name(fw, st->plugin);
    if (plugin && *plugin) cJSON_AddStringToObject(f, "plugin", plugin);
    cJSON_AddStringToObject(f, "code", ms_code_str((ms_code)st->code));
    cJSON *rs = cJSON_AddArrayToObject(f, "reasons");
    for (uint32_t k = 0; k < st->nreasons; k++)
        cJSON_AddItemToArray(rs, cJSON_CreateString(st->reasons[k] ? st->reasons[k] : ""));
    return f;
}

/* Filter over every node into s->statuses; the feasible ones into
 * s->feasible (*nfeasible). */
static void filter_all(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, uint32_t n, uint32_t *nfeasible) {
    for (uint32_t i = 0; i < n; i++)
        ms_framework_run_filter_with_nominated(fw, c, s->snap.nodes[i], &s->statuses[i]);
    if (ms_framework_has_filter_batch(fw))
        ms_framework_run_filter_batch(fw, c, s->snap.nodes, n, s->statuses);
    *nfeasible = 0;
    for (uint32_t i = 0; i < n; i++)
        if (s->statuses[i].code == MS_SUCCESS) s->feasible[(*nfeasible)++] = s->snap.nodes[i];
}

/* Per node: {"node", "filter": status} or {"node", "scores", "total"}. */
static void nodes_json(ms_scheduler *s, const ms_framework *fw, uint32_t profile, uint32_t n, uint32_t nfeasible,
                       bool scored, cJSON *arr) {
    const ms_profile_info *info = &s->info[profile];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = s->snap.nodes[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "node", ms_str_get(s->in, ni->name));
        if (s->statuses[i].code != MS_SUCCESS) {
            cJSON_AddItemToObject(e, "filter", ms_explain_status_json(fw, &s->statuses[i]));
        } else if (k < nfeasible && s->feasible[k] == ni) {
            if (scored) {
                cJSON *sc = cJSON_AddObjectToObject(e, "scores");
                for (uint32_t p = 0; p < info->nscore; p++)
                    cJSON_AddNumberToObject(sc, info->score_names[p], (double)s->per_plugin[(size_t)p * nfeasible + k]);
                cJSON_AddNumberToObject(e, "total", (double)s->totals[k]);
            }
            k++;
        }
        cJSON_AddItemToArray(arr, e);
    }
}

/* PreScore and Score over the feasible nodes; false (with out's "error")
 * when a plugin failed. */
static bool score_all(ms_scheduler *s, const ms_framework *fw, ms_cycle *c, uint32_t nfeasible, cJSON *out) {
    ms_status st;
    ms_status_ok(&st);
    if (ms_framework_run_pre_score(fw, c, s->feasible, nfeasible, &st) != MS_SUCCESS ||
        ms_framework_run_score(fw, c, s->feasible, nfeasible, s->totals, s->per_plugin, &st) != MS_SUCCESS) {
        cJSON_AddItemToObject(out, "error", ms_explain_status_json(fw, &st));
        return false;
    }
    ms_framework_clear_skipped_scores(fw, c, s->per_plugin, nfeasible);
    return true;
}

static void run_pass(ms_scheduler *s, ms_inflight *r, cJSON *out) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_cycle *c = &r->cycle;
    uint32_t n = s->snap.nnodes;
    cJSON_AddNumberToObject(out, "nodes", n);
    ms_status st;
    ms_status_ok(&st);
    ms_code code = ms_framework_run_pre_filter(fw, c, &st);
    if (code != MS_SUCCESS) {
        cJSON_AddItemToObject(out, "preFilter", ms_explain_status_json(fw, &st));
        return;
    }
    uint32_t nfeasible = 0;
    filter_all(s, fw, c, n, &nfeasible);
    cJSON_AddNumberToObject(out, "feasibleNodes", nfeasible);
    bool scored = nfeasible > 0 && score_all(s, fw, c, nfeasible, out);
    nodes_json(s, fw, r->profile, n, nfeasible, scored, cJSON_AddArrayToObject(out, "nodeResults"));
}

/* The pass for a queued pod, into a record of the pool (released after). */
static cJSON *recompute(ms_scheduler *s, ms_queued_pod *qp, uint32_t profile, double now) {
    cJSON *out = cJSON_CreateObject();
    ms_inflight *r = ms_sched_record_take(s);
    if (!out || !r) {
        if (r) ms_sched_record_release(s, r);
        cJSON_Delete(out);
        return NULL;
    }
    r->profile = profile;
    ms_cycle *c = &r->cycle;
    c->pod = qp->pod;
    c->qp = qp;
    c->snap = &s->snap;
    c->arena = &r->arena;
    c->h = &s->handle;
    c->cycle = ms_queue_cycle(s->queue);
    s->now = now;
    if (ms_cache_update_snapshot(s->cache, &s->snap) != MS_OK ||
        ms_framework_begin_cycle(&s->profiles[profile], c) != MS_OK ||
        !ms_sched_grow_buffers(s, s->snap.nnodes)) {
        cJSON_AddStringToObject(out, "error", "out of memory");
    } else {
        ms_sched_release_evicted(s);   /* the snapshot no longer borrows them */
        c->explaining = true;
        run_pass(s, r, out);
        c->explaining = false;
    }
    ms_sched_record_release(s, r);
    return out;
}

static char *pod_key(const ms_scheduler *s, ms_str ns, ms_str name, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", ms_str_get(s->in, ns), ms_str_get(s->in, name));
    return buf;
}

/* Where the pod is now: "state" and, when it has one, "node". */
static const ms_queued_pod *add_state(ms_scheduler *s, ms_str ns, ms_str name, cJSON *o, bool *known) {
    pod_lookup l = {.ns = ns, .name = name};
    ms_queue_each(s->queue, match_queued, &l);
    const ms_inflight *b = find_binding(s, ns, name);
    const ms_pod *cached = b ? NULL : find_in_cache(s, ns, name);
    *known = true;
    if (b) {
        cJSON_AddStringToObject(o, "state", b->waiting ? "waitingOnPermit" : "binding");
        cJSON_AddStringToObject(o, "node", ms_str_get(s->in, b->node));
    } else if (cached) {
        bool assumed = ms_cache_is_assumed(s->cache, cached);
        cJSON_AddStringToObject(o, "state", assumed ? "assumed" : "bound");
        cJSON_AddStringToObject(o, "node", ms_str_get(s->in, cached->node_name));
    } else if (l.qp) {
        cJSON_AddStringToObject(o, "state", "pending");
        cJSON_AddStringToObject(o, "queue", where_name(l.qp->where, l.qp->gated));
        ms_str nom = ms_queue_nominated_node(s->queue, l.qp->pod->meta.uid_hash);
        if (nom != MS_STR_NONE) cJSON_AddStringToObject(o, "nominatedNode", ms_str_get(s->in, nom));
    } else {
        cJSON_AddStringToObject(o, "state", "unknown");
        *known = false;
    }
    return b || cached ? NULL : l.qp;
}

ms_rc ms_scheduler_explain(ms_scheduler *s, const char *ns, const char *name, double now, cJSON **out,
                           ms_error *err) {
    *out = NULL;
    ms_str ns_id = ms_intern_find(s->in, ns, strlen(ns)), name_id = ms_intern_find(s->in, name, strlen(name));
    if (ns_id == MS_STR_NONE || name_id == MS_STR_NONE)
        return ms_error_set(err, MS_ENOENT, "pod %s/%s: not known to the scheduler", ns, name);
    cJSON *o = cJSON_CreateObject();
    if (!o) return ms_error_set(err, MS_ENOMEM, "out of memory");
    char key[600];
    cJSON_AddStringToObject(o, "pod", pod_key(s, ns_id, name_id, key, sizeof key));
    bool known;
    const ms_queued_pod *qp = add_state(s, ns_id, name_id, o, &known);
    const ms_explain_record *rec = ms_explain_ring_find(&s->explain, ns_id, name_id);
    if (!known && !rec) {
        cJSON_Delete(o);
        return ms_error_set(err, MS_ENOENT, "pod %s/%s: not known to the scheduler", ns, name);
    }
    cJSON_AddNumberToObject(o, "policyGeneration", (double)s->policy_generation);
    cJSON_AddNumberToObject(o, "recordedCycles", s->explain.cap);
    if (rec) {
        const ms_profile_info *info = &s->info[rec->profile];
        cJSON_AddItemToObject(o, "lastCycle",
                              ms_explain_record_json(rec, s->in, s->pcs[rec->profile].scheduler_name,
                                                     info->score_names, info->nreport));
    }
    int32_t profile = qp ? ms_scheduler_profile_index(s, qp->pod->scheduler_name) : -1;
    if (qp && profile >= 0 && qp->where != MS_QW_IN_FLIGHT) {
        cJSON *now_json = recompute(s, (ms_queued_pod *)qp, (uint32_t)profile, now);
        if (now_json) cJSON_AddItemToObject(o, "recomputedNow", now_json);
    }
    *out = o;
    return MS_OK;
}
