/* The scheduler object: construction from a configuration, cluster deltas
 * (upstream's eventhandlers.go), binding outcomes and housekeeping. The
 * scheduling cycle itself is in schedule_one.c. */
#include "moonsched/scheduler.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pdb_set.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "base/map.h"
#include "framework/runners.h"
#include "moonsched/lua_policy.h"
#include "moonsched/nodeinfo.h"
#include "scheduler/scheduler_priv.h"

/* First block of a cycle arena: big enough for the default profile's cycle
 * state, so that steady-state cycles allocate nothing. */
#define CYCLE_ARENA_BLOCK 4096

/* ---- record pool ---------------------------------------------------- */

ms_inflight *ms_sched_record_take(ms_scheduler *s) {
    ms_inflight *r = s->free_records;
    if (r) {
        s->free_records = r->next_free;
    } else {
        r = calloc(1, sizeof *r);
        if (!r) return NULL;
        ms_arena_init(&r->arena, CYCLE_ARENA_BLOCK);
    }
    ms_arena_reset(&r->arena);
    r->next_free = NULL;
    r->qp = NULL;
    r->assumed = NULL;
    r->node = MS_STR_NONE;
    r->profile = 0;
    r->deleted = false;
    r->waiting = false;
    r->deadline = 0;
    r->report = NULL;
    memset(&r->cycle, 0, sizeof r->cycle);
    return r;
}

void ms_sched_record_release(ms_scheduler *s, ms_inflight *r) {
    if (r->assumed) ms_pod_unref(r->assumed);
    r->assumed = NULL;
    r->qp = NULL;
    r->next_free = s->free_records;
    s->free_records = r;
}

bool ms_sched_msg_reserve(ms_scheduler *s, size_t n) {
    if (n <= s->msgcap) return true;
    size_t cap = s->msgcap ? s->msgcap : 256;
    while (cap < n) cap *= 2;
    char *m = realloc(s->msg, cap);
    if (!m) return false;
    s->msg = m;
    s->msgcap = cap;
    return true;
}

/* ---- construction ---------------------------------------------------- */

static ms_rc sched_bind(void *ctx, const ms_pod *pod, ms_str node) {
    ms_scheduler *s = ctx;
    if (!s->binder.bind) return MS_ESTATE;
    return s->binder.bind(s->binder.ctx, pod, node);
}

/* ---- preemption's callbacks (handle.evict, handle.clear_nomination) ---- */

static ms_inflight *binding_record(const ms_scheduler *s, uint64_t uid_hash);

/* Keeps the victim alive until the next snapshot update: evicting it may
 * drop the cache's reference while the cycle still reads it. */
static bool hold_victim(ms_scheduler *s, ms_pod *victim) {
    if (s->nevicted == s->evictcap) {
        uint32_t cap = s->evictcap ? s->evictcap * 2 : 16;
        ms_pod **v = realloc(s->evicted, cap * sizeof *v);
        if (!v) return false;
        s->evicted = v;
        s->evictcap = cap;
    }
    s->evicted[s->nevicted++] = ms_pod_ref(victim);
    return true;
}

void ms_sched_release_evicted(ms_scheduler *s) {
    for (uint32_t i = 0; i < s->nevicted; i++) ms_pod_unref(s->evicted[i]);
    s->nevicted = 0;
}

/* upstream PrepareCandidate, per victim: a pod waiting on Permit is
 * rejected (it is not bound yet, so there is nothing to delete), any other
 * goes to the evictor. */
static ms_rc sched_evict(void *ctx, ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    ms_scheduler *s = ctx;
    if (!hold_victim(s, victim)) return MS_ENOMEM;
    ms_inflight *r = binding_record(s, victim->meta.uid_hash);
    if (r && r->waiting) {
        ms_sched_reject_waiting(s, r, "preempted", false, s->now);
    } else {
        if (!s->evictor.evict) return MS_ESTATE;
        ms_rc rc = s->evictor.evict(s->evictor.ctx, victim, preemptor, node);
        if (rc != MS_OK) return rc;
    }
    if (s->reporter.preempted) s->reporter.preempted(s->reporter.ctx, victim, preemptor, node);
    return MS_OK;
}

static void sched_clear_nomination(void *ctx, ms_pod *pod) {
    ms_scheduler *s = ctx;
    ms_queue_delete_nominated(s->queue, pod);
    if (s->evictor.set_nomination) s->evictor.set_nomination(s->evictor.ctx, pod, MS_STR_NONE);
}

/* PreEnqueue of the pod's own profile (the queue is shared by all). */
static bool sched_pre_enqueue(void *ctx, const ms_pod *pod) {
    ms_scheduler *s = ctx;
    int32_t i = ms_scheduler_profile_index(s, pod->scheduler_name);
    if (i < 0) return false;
    return ms_framework_pre_enqueue(&s->profiles[i], pod, NULL);
}

static const char *queue_sort_name(const ms_framework *fw) {
    if (fw->norder[MS_EP_QUEUE_SORT] == 0) return "";
    return fw->plugins[fw->order[MS_EP_QUEUE_SORT][0]].ops->name;
}

static void refresh_info(ms_scheduler *s, uint32_t i) {
    ms_profile_info *info = &s->info[i];
    info->nscore = ms_framework_nscore(&s->profiles[i]);
    for (uint32_t k = 0; k < info->nscore && k < MS_MAX_PLUGINS; k++)
        info->score_names[k] = ms_framework_score_name(&s->profiles[i], k);
    info->nreport = info->nscore;
    for (uint32_t k = 0; k < ms_extenders_nprioritizers(s->ext) && info->nreport < MS_MAX_PLUGINS; k++)
        info->score_names[info->nreport++] = ms_extenders_prioritizer_name(s->ext, k);
    if (info->nscore > s->max_nscore) s->max_nscore = info->nscore;
}

/* One queue orders the pods of every profile: upstream requires the same
 * QueueSort everywhere. */
static ms_rc same_queue_sort(const ms_scheduler *s, uint32_t i, const char *name0, const char *name,
                             ms_error *err) {
    if (strcmp(name, name0) == 0) return MS_OK;
    return ms_error_set(err, MS_EINVAL,
                        "profile \"%s\": queue sort plugin \"%s\" differs from \"%s\" of "
                        "profile \"%s\"; all profiles must use the same queue sort",
                        s->pcs[i].scheduler_name, name, name0, s->pcs[0].scheduler_name);
}

/* The policies this profile names, in the profile's order, for its
 * DefaultPreemption. */
static ms_rc attach_policies(ms_scheduler *s, uint32_t i, const ms_profile_config *pc,
                             const ms_scheduler_options *o) {
    if (o->npolicies == 0) return MS_OK;
    ms_policy **named = calloc(o->npolicies, sizeof *named);
    if (!named) return MS_ENOMEM;
    uint32_t n = 0;
    for (uint32_t k = 0; k < pc->nplugins; k++)
        for (uint32_t j = 0; j < o->npolicies; j++)
            if (strcmp(pc->plugins[k].name, ms_policy_name(o->policies[j])) == 0 &&
                n < o->npolicies)
                named[n++] = o->policies[j];
    ms_policy_preemption_attach(&s->policy_preemption[i], &s->profiles[i], named, n);
    free(named);
    return MS_OK;
}

/* upstream buildExtenders: the resources extenders manage with
 * ignoredByScheduler replace NodeResourcesFit's ignoredResources in every
 * profile that runs it ("the extender ignored resources take precedence").
 * `copy` becomes pc with that plugin's args replaced; *own is the args
 * object to delete after the framework is built. */
static ms_rc with_ignored_resources(const ms_profile_config *pc, const cJSON *ignored,
                                    ms_profile_config *copy, cJSON **own, ms_error *err) {
    *copy = *pc;
    *own = NULL;
    for (uint32_t k = 0; k < copy->nplugins; k++) {
        ms_plugin_config *p = &copy->plugins[k];
        if (strcmp(p->name, "NodeResourcesFit") != 0) continue;
        cJSON *args = p->args ? cJSON_Duplicate(p->args, true) : cJSON_CreateObject();
        cJSON *list = cJSON_Duplicate(ignored, true);
        if (!args || !list || !cJSON_IsObject(args)) {
            cJSON_Delete(args);
            cJSON_Delete(list);
            if (args && list) return MS_OK;   /* not an object: the plugin reports it */
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
        cJSON_DeleteItemFromObjectCaseSensitive(args, "ignoredResources");
        cJSON_AddItemToObject(args, "ignoredResources", list);
        p->args = *own = args;
    }
    return MS_OK;
}

/* Extenders from the configuration; *ignored receives the names of the
 * resources they manage with ignoredByScheduler (NULL when none). */
static ms_rc init_extenders(ms_scheduler *s, const ms_config *cfg, cJSON **ignored, ms_error *err) {
    *ignored = NULL;
    ms_extender_config *ec = NULL;
    uint32_t n = 0;
    ms_rc rc = ms_extender_configs_parse(cfg->extenders, &ec, &n, NULL, NULL, NULL, err);
    if (rc != MS_OK || n == 0) return rc;
    rc = ms_extenders_new(ec, n, s->in, &s->ext, err);
    for (uint32_t i = 0; i < n && rc == MS_OK; i++)
        for (uint32_t k = 0; k < ec[i].nmanaged && rc == MS_OK; k++) {
            if (!ec[i].managed[k].ignored_by_scheduler) continue;
            if (!*ignored) *ignored = cJSON_CreateArray();
            cJSON *name = *ignored ? cJSON_CreateString(ec[i].managed[k].name) : NULL;
            if (!name || !cJSON_AddItemToArray(*ignored, name)) {
                cJSON_Delete(name);
                rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            }
        }
    ms_extender_configs_free(ec, n);
    s->handle.extenders = s->ext;
    /* extenders receive the objects as the API server sent them */
    s->dec.keep_raw = s->ext != NULL;
    return rc;
}

/* Fills the arrays allocated by ms_scheduler_new; `copy` is room for a
 * profile changed by with_ignored_resources. */
static ms_rc init_profiles_with(ms_scheduler *s, const ms_config *cfg, const ms_scheduler_options *o,
                                const cJSON *ignored, ms_profile_config *copy, ms_error *err) {
    for (uint32_t i = 0; i < cfg->nprofiles; i++) {
        const ms_profile_config *pc = &cfg->profiles[i];
        s->pcs[i] = *pc;
        for (uint32_t k = 0; k < s->pcs[i].nplugins; k++) s->pcs[i].plugins[k].args = NULL;
        /* The profile's own out-of-tree plugins first, then the shared ones. */
        uint32_t nown = o->profile_out_of_tree && o->n_profile_out_of_tree
                            ? o->n_profile_out_of_tree[i] : 0;
        uint32_t nall = nown + o->n_out_of_tree;
        const ms_plugin_ops **oot = nall ? calloc(nall, sizeof *oot) : NULL;
        if (nall && !oot) return ms_error_set(err, MS_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < nown; k++) oot[k] = o->profile_out_of_tree[i][k];
        for (uint32_t k = 0; k < o->n_out_of_tree; k++) oot[nown + k] = o->out_of_tree[k];
        cJSON *own = NULL;
        ms_rc rc = MS_OK;
        if (ignored && (rc = with_ignored_resources(pc, ignored, copy, &own, err)) == MS_OK) pc = copy;
        if (rc == MS_OK)
            rc = ms_framework_init_with(&s->profiles[i], pc, cfg->percentage_of_nodes_to_score,
                                        &s->handle, oot, nall, err);
        cJSON_Delete(own);
        free(oot);
        pc = &cfg->profiles[i];
        if (rc != MS_OK) return rc;
        s->nprofiles = i + 1;
        ms_profile_info *info = &s->info[i];
        info->scheduler_name = ms_intern_cstr(s->in, pc->scheduler_name);
        if (info->scheduler_name == MS_STR_NONE) return ms_error_set(err, MS_ENOMEM, "out of memory");
        for (uint32_t j = 0; j < i; j++)
            if (s->info[j].scheduler_name == info->scheduler_name)
                return ms_error_set(err, MS_EINVAL, "profile \"%s\" is defined twice",
                                    pc->scheduler_name);
        refresh_info(s, i);
        ms_rc prc = attach_policies(s, i, pc, o);
        if (prc != MS_OK) return ms_error_set(err, prc, "out of memory");
        rc = same_queue_sort(s, i, queue_sort_name(&s->profiles[0]),
                             queue_sort_name(&s->profiles[i]), err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

static ms_rc init_profiles(ms_scheduler *s, const ms_config *cfg, const ms_scheduler_options *o,
                           const cJSON *ignored, ms_error *err) {
    ms_profile_config *copy = ignored ? malloc(sizeof *copy) : NULL;
    if (ignored && !copy) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = init_profiles_with(s, cfg, o, ignored, copy, err);
    free(copy);
    return rc;
}

ms_rc ms_scheduler_new(const ms_scheduler_options *o, ms_scheduler **out, ms_error *err) {
    *out = NULL;
    if (!o || !o->in) return ms_error_set(err, MS_EINVAL, "scheduler options need an interner");
    ms_scheduler *s = calloc(1, sizeof *s);
    if (!s) return ms_error_set(err, MS_ENOMEM, "out of memory");
    s->in = o->in;
    s->binder = o->binder;
    s->reporter = o->reporter;
    s->evictor = o->evictor;
    s->permit_timeout_allows = o->permit_timeout_allows;
    ms_rng_seed(&s->rng, o->seed);
    ms_snapshot_init(&s->snap);
    ms_namespaces_init(&s->namespaces);
    ms_map_init(&s->binding);
    ms_decoder_init(&s->dec, s->in);

    ms_config defaults;
    bool own_defaults = false;
    const ms_config *cfg = o->config;
    ms_rc rc = MS_OK;
    if (!cfg) {
        rc = ms_config_default(&defaults);
        if (rc != MS_OK) {
            ms_error_set(err, rc, "building the default configuration failed");
            goto fail;
        }
        own_defaults = true;
        cfg = &defaults;
    }
    if (cfg->nprofiles == 0) {
        rc = ms_error_set(err, MS_EINVAL, "no scheduler profiles configured");
        goto fail;
    }

    s->cache = ms_cache_new(s->in, cfg->assumed_ttl);
    s->handle.in = s->in;
    s->handle.rn = &s->dec.rn;
    s->handle.scratch = ms_node_info_new(MS_STR_NONE);
    if (s->handle.scratch) s->handle.scratch->scratch = true;
    s->handle.wildcard_ip = ms_intern_cstr(s->in, "0.0.0.0");
    s->handle.bind = sched_bind;
    s->handle.bind_ctx = s;
    s->handle.namespaces = &s->namespaces;
    s->pdbs = ms_pdb_set_new();
    s->handle.pdbs = s->pdbs;
    s->handle.rng = &s->rng;
    s->handle.evict = o->evictor.evict ? sched_evict : NULL;
    s->handle.clear_nomination = sched_clear_nomination;
    s->handle.preempt_ctx = s;
    s->profiles = calloc(cfg->nprofiles, sizeof *s->profiles);
    s->info = calloc(cfg->nprofiles, sizeof *s->info);
    s->pcs = calloc(cfg->nprofiles, sizeof *s->pcs);
    s->policy_preemption = calloc(cfg->nprofiles, sizeof *s->policy_preemption);
    if (!s->cache || !s->pdbs || !s->handle.scratch || s->handle.wildcard_ip == MS_STR_NONE ||
        !s->profiles || !s->info || !s->pcs || !s->policy_preemption) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto fail;
    }

    /* The queue exists before the plugins, which may keep the handle that
     * points at it. Its QueueSort is profile 0's framework, initialised
     * below, before any pod arrives. */
    ms_queue_config qc;
    ms_queue_config_default(&qc);
    if (cfg->pod_initial_backoff > 0) qc.initial_backoff = cfg->pod_initial_backoff;
    if (cfg->pod_max_backoff > 0) qc.max_backoff = cfg->pod_max_backoff;
    if (cfg->pod_max_unschedulable > 0) qc.max_unschedulable = cfg->pod_max_unschedulable;
    qc.less = ms_framework_less;
    qc.less_ctx = &s->profiles[0];
    qc.pre_enqueue = sched_pre_enqueue;
    qc.pre_enqueue_ctx = s;
    s->queue = ms_queue_new(&qc);
    if (!s->queue) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto fail;
    }
    s->handle.queue = s->queue;

    cJSON *ignored = NULL;
    rc = init_extenders(s, cfg, &ignored, err);
    if (rc == MS_OK) rc = init_profiles(s, cfg, o, ignored, err);
    cJSON_Delete(ignored);
    if (rc != MS_OK) goto fail;

    if (own_defaults) ms_config_free(&defaults);
    *out = s;
    return MS_OK;

fail:
    if (own_defaults) ms_config_free(&defaults);
    ms_scheduler_free(s);
    return rc;
}

void ms_scheduler_free(ms_scheduler *s) {
    if (!s) return;
    /* Binds still in flight: their queue entries are ours to hand back. */
    uint64_t key;
    void *val;
    for (size_t it = 0; ms_map_next(&s->binding, &it, &key, &val);) {
        ms_inflight *r = val;
        if (s->queue && r->qp) ms_queue_done(s->queue, r->qp);
        ms_sched_record_release(s, r);
    }
    ms_map_free(&s->binding);
    free(s->waiting);
    ms_sched_release_evicted(s);
    free(s->evicted);
    for (uint32_t i = 0; i < s->nprofiles; i++) ms_framework_destroy(&s->profiles[i]);
    ms_extenders_free(s->ext);
    free(s->profiles);
    free(s->info);
    free(s->pcs);
    free(s->later);
    free(s->policy_preemption);
    if (s->queue) ms_queue_free(s->queue);
    ms_snapshot_free(&s->snap);
    ms_namespaces_free(&s->namespaces);
    if (s->cache) ms_cache_free(s->cache);
    if (s->pdbs) ms_pdb_set_free(s->pdbs);
    if (s->handle.scratch) ms_node_info_free(s->handle.scratch);
    while (s->free_records) {
        ms_inflight *r = s->free_records;
        s->free_records = r->next_free;
        ms_arena_free(&r->arena);
        free(r);
    }
    free(s->statuses);
    free(s->feasible);
    free(s->totals);
    free(s->per_plugin);
    free(s->msg);
    free(s);
}

/* ---- accessors ------------------------------------------------------- */

int32_t ms_scheduler_profile_index(const ms_scheduler *s, ms_str scheduler_name) {
    for (uint32_t i = 0; i < s->nprofiles; i++)
        if (s->info[i].scheduler_name == scheduler_name) return (int32_t)i;
    return -1;
}

uint32_t ms_scheduler_next_start_index(const ms_scheduler *s) { return s->next_start; }
uint32_t ms_scheduler_binding_count(const ms_scheduler *s) { return (uint32_t)s->binding.len; }
uint32_t ms_scheduler_waiting_count(const ms_scheduler *s) { return s->nwaiting; }

double ms_scheduler_next_permit_deadline(const ms_scheduler *s) {
    double next = 0;
    for (uint32_t i = 0; i < s->nwaiting; i++)
        if (next == 0 || s->waiting[i]->deadline < next) next = s->waiting[i]->deadline;
    return next;
}
ms_queue *ms_scheduler_queue(ms_scheduler *s) { return s->queue; }
const ms_decoder *ms_scheduler_decoder(const ms_scheduler *s) { return &s->dec; }
ms_cache *ms_scheduler_cache(ms_scheduler *s) { return s->cache; }
uint32_t ms_scheduler_nprofiles(const ms_scheduler *s) { return s->nprofiles; }

const ms_framework *ms_scheduler_profile(const ms_scheduler *s, uint32_t i) {
    return i < s->nprofiles ? &s->profiles[i] : NULL;
}

/* ---- node deltas ----------------------------------------------------- */

static bool resources_equal(const ms_resources *a, const ms_resources *b) {
    if (memcmp(a->v, b->v, sizeof a->v) != 0 || a->nscalar != b->nscalar) return false;
    for (uint32_t i = 0; i < a->nscalar; i++)
        if (a->scalar[i].name != b->scalar[i].name || a->scalar[i].value != b->scalar[i].value)
            return false;
    return true;
}

static bool labels_equal(const ms_labels *a, const ms_labels *b) {
    if (a->n != b->n) return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->items[i].key != b->items[i].key || a->items[i].value != b->items[i].value)
            return false;
    return true;
}

static bool taints_equal(const ms_node *a, const ms_node *b) {
    if (a->ntaints != b->ntaints) return false;
    for (uint32_t i = 0; i < a->ntaints; i++) {
        const ms_taint *x = &a->taints[i], *y = &b->taints[i];
        if (x->key != y->key || x->value != y->value || x->effect != y->effect) return false;
    }
    return true;
}

/* Status of a condition type, the last entry winning as in upstream's map;
 * 0xff when absent. */
static int condition_status(const ms_node *n, ms_str type) {
    int status = 0xff;
    for (uint32_t i = 0; i < n->nconditions; i++)
        if (n->conditions[i].type == type) status = n->conditions[i].status;
    return status;
}

static bool conditions_equal(const ms_node *a, const ms_node *b) {
    for (uint32_t i = 0; i < a->nconditions; i++)
        if (condition_status(a, a->conditions[i].type) != condition_status(b, a->conditions[i].type))
            return false;
    for (uint32_t i = 0; i < b->nconditions; i++)
        if (condition_status(a, b->conditions[i].type) == 0xff) return false;
    return true;
}

/* upstream nodeSchedulingPropertiesChange, as a mask of every change. */
static ms_event_mask node_change_events(const ms_node *old, const ms_node *nw) {
    ms_event_mask ev = 0;
    if (old->unschedulable && !nw->unschedulable) ev |= MS_EV_NODE_UNSCHEDULABLE;
    if (!resources_equal(&old->allocatable, &nw->allocatable)) ev |= MS_EV_NODE_ALLOCATABLE;
    if (!labels_equal(&old->meta.labels, &nw->meta.labels)) ev |= MS_EV_NODE_LABEL;
    if (!taints_equal(old, nw)) ev |= MS_EV_NODE_TAINT;
    if (!conditions_equal(old, nw)) ev |= MS_EV_NODE_CONDITION;
    return ev;
}

void ms_scheduler_node_add(ms_scheduler *s, ms_node *node, double now) {
    const ms_node_info *ni = ms_cache_node_info(s->cache, node->meta.name);
    if (ni && ni->node) {
        ms_scheduler_node_update(s, node, now);
        return;
    }
    if (ms_cache_add_node(s->cache, node) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NODE_ADD, now);
}

void ms_scheduler_node_update(ms_scheduler *s, ms_node *node, double now) {
    const ms_node_info *ni = ms_cache_node_info(s->cache, node->meta.name);
    if (!ni || !ni->node) {
        if (ms_cache_add_node(s->cache, node) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_NODE_ADD, now);
        return;
    }
    /* Compared before the update: the cache drops its old node then. */
    ms_event_mask ev = node_change_events(ni->node, node);
    if (ms_cache_update_node(s->cache, node) != MS_OK) return;
    if (ev) ms_queue_move_on_event(s->queue, ev, now);
}

void ms_scheduler_node_delete(ms_scheduler *s, ms_str name, double now) {
    if (ms_cache_remove_node(s->cache, name) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NODE_DELETE, now);
}

/* ---- namespace deltas ------------------------------------------------ */

static bool same_labels(const ms_namespace *a, const ms_namespace *b) {
    return a && b && a->meta.labels.n == b->meta.labels.n &&
           (a->meta.labels.n == 0 || memcmp(a->meta.labels.items, b->meta.labels.items,
                                            a->meta.labels.n * sizeof(ms_label)) == 0);
}

void ms_scheduler_namespace_add(ms_scheduler *s, ms_namespace *ns, double now) {
    const ms_namespace *old = ms_namespaces_get(&s->namespaces, ns->meta.name);
    bool changed = !same_labels(old, ns);
    if (ms_namespaces_set(&s->namespaces, ns) != MS_OK) return;
    if (changed) ms_queue_move_on_event(s->queue, MS_EV_NAMESPACE, now);
}

void ms_scheduler_namespace_delete(ms_scheduler *s, ms_str name, double now) {
    if (ms_namespaces_remove(&s->namespaces, name) != MS_OK) return;
    ms_queue_move_on_event(s->queue, MS_EV_NAMESPACE, now);
}

/* ---- PodDisruptionBudget deltas ------------------------------------- */

void ms_scheduler_pdb_add(ms_scheduler *s, ms_pdb *pdb, double now) {
    (void)now;
    ms_pdb_set_update(s->pdbs, pdb);
}

void ms_scheduler_pdb_update(ms_scheduler *s, ms_pdb *pdb, double now) {
    ms_scheduler_pdb_add(s, pdb, now);
}

void ms_scheduler_pdb_delete(ms_scheduler *s, ms_str namespace_, ms_str name, double now) {
    (void)now;
    ms_pdb_set_delete(s->pdbs, namespace_, name);
}

uint32_t ms_scheduler_pdb_count(const ms_scheduler *s) { return ms_pdb_set_len(s->pdbs); }

/* ---- pod deltas ------------------------------------------------------ */

static ms_inflight *binding_record(const ms_scheduler *s, uint64_t uid_hash) {
    return ms_map_get(&s->binding, uid_hash);
}

/* A pod with nodeName (add or update): into the cache, confirming our
 * assumption if it is one; out of the queue if it was pending there. */
static void assigned_pod_upsert(ms_scheduler *s, ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    /* A pod bound by someone else while it waited in our queue. Our own
     * binding pods are not in the queue: their record holds the entry. */
    if (!binding_record(s, uid)) ms_queue_delete(s->queue, pod);
    ms_pod *old = ms_cache_get_pod(s->cache, uid);
    bool was_bound = old && !ms_cache_is_assumed(s->cache, old);
    if (ms_pod_is_terminal(pod)) {
        /* A terminal pod releases what it held. */
        if (old && ms_cache_remove_pod(s->cache, old) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
        return;
    }
    ms_rc rc = was_bound ? ms_cache_update_pod(s->cache, old, pod) : ms_cache_add_pod(s->cache, pod);
    if (rc == MS_OK)
        ms_queue_move_on_event(s->queue, was_bound ? MS_EV_ASSIGNED_POD_UPDATE : MS_EV_ASSIGNED_POD_ADD,
                               now);
}

static bool responsible_for(const ms_scheduler *s, const ms_pod *pod) {
    return ms_scheduler_profile_index(s, pod->scheduler_name) >= 0;
}

void ms_scheduler_pod_add(ms_scheduler *s, ms_pod *pod, double now) {
    if (pod->node_name != MS_STR_NONE) {
        assigned_pod_upsert(s, pod, now);
        return;
    }
    if (ms_pod_is_terminal(pod) || !responsible_for(s, pod)) return;
    /* An informer replay of a pod we are binding or have bound (assumed,
     * not confirmed yet): not pending any more. */
    if (binding_record(s, pod->meta.uid_hash) || ms_cache_get_pod(s->cache, pod->meta.uid_hash))
        return;
    if (ms_queue_add(s->queue, pod, now) == MS_EEXIST) ms_queue_update(s->queue, pod, now);
}

void ms_scheduler_pod_update(ms_scheduler *s, ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    ms_inflight *r = binding_record(s, uid);
    if (pod->node_name != MS_STR_NONE) {
        assigned_pod_upsert(s, pod, now);
        return;
    }
    if (r) {
        /* Being bound. The queue keeps the newest object for the in-flight
         * entry: a retry after a failed bind uses it (upstream skips
         * updates of assumed pods otherwise). */
        ms_queue_update(s->queue, pod, now);
        return;
    }
    if (ms_pod_is_terminal(pod) || !responsible_for(s, pod)) {
        ms_queue_delete(s->queue, pod);
        return;
    }
    /* Assumed after a successful bind, waiting for the informer's bound
     * version: the queue must not take it back. */
    if (ms_cache_get_pod(s->cache, uid)) return;
    if (ms_queue_update(s->queue, pod, now) == MS_ENOENT) ms_queue_add(s->queue, pod, now);
}

void ms_scheduler_pod_delete(ms_scheduler *s, const ms_pod *pod, double now) {
    uint64_t uid = pod->meta.uid_hash;
    ms_inflight *r = binding_record(s, uid);
    if (r) r->deleted = true;
    if (r && r->waiting) {
        /* upstream rejects a waiting pod that is deleted. */
        ms_sched_reject_waiting(s, r, "pod deleted while waiting on Permit", true, now);
        ms_sched_flush_permits(s, now);
        r = NULL;
    }
    if (pod->node_name != MS_STR_NONE) {
        if (ms_cache_get_pod(s->cache, uid) && ms_cache_remove_pod(s->cache, pod) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
        return;
    }
    /* The queue keeps an in-flight entry valid for its record. */
    ms_queue_delete(s->queue, pod);
}

/* ---- binding outcomes ------------------------------------------------ */

void ms_sched_binding_failed(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_framework_run_unreserve(fw, &r->cycle, r->node);
    ms_cache_forget_pod(s->cache, r->assumed);
    if (s->reporter.bind_failed)
        s->reporter.bind_failed(s->reporter.ctx, r->qp->pod, r->node,
                                message ? message : "binding failed");
    /* What the pod held is free again. The pod itself is not in the queue
     * yet, so the move cannot pick it up. */
    ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET, now);
    if (gone || r->deleted) {
        ms_queue_done(s->queue, r->qp);
    } else {
        r->qp->unschedulable_plugins = 0;
        ms_queue_add_backoff(s->queue, r->qp, now);
    }
    ms_sched_record_release(s, r);
}

void ms_scheduler_bind_done(ms_scheduler *s, const ms_pod *pod, bool ok, bool gone,
                            const char *message, double now) {
    ms_inflight *r = ms_map_get(&s->binding, pod->meta.uid_hash);
    if (!r || r->waiting) return;   /* never handed to the binder */
    ms_map_del(&s->binding, pod->meta.uid_hash);
    if (!ok) {
        ms_sched_binding_failed(s, r, message, gone, now);
        ms_sched_flush_permits(s, now);
        return;
    }
    ms_cache_finish_binding(s->cache, r->assumed, now);
    ms_framework_run_post_bind(&s->profiles[r->profile], r->assumed, r->node);
    ms_queue_done(s->queue, r->qp);
    ms_sched_record_release(s, r);
    ms_sched_flush_permits(s, now);
}

static void unpark(ms_scheduler *s, ms_inflight *r) {
    for (uint32_t i = 0; i < s->nwaiting; i++)
        if (s->waiting[i] == r) {
            s->waiting[i] = s->waiting[--s->nwaiting];
            break;
        }
    r->waiting = false;
}

void ms_sched_reject_waiting(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now) {
    unpark(s, r);
    ms_map_del(&s->binding, r->qp->pod->meta.uid_hash);
    ms_framework_run_unreserve(&s->profiles[r->profile], &r->cycle, r->node);
    ms_cache_forget_pod(s->cache, r->assumed);
    /* What the pod held is free again (upstream treats forgetting it as an
     * AssignedPodDelete); the pod itself is not in the queue yet. */
    ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET, now);
    ms_queued_pod *qp = r->qp;
    if (gone || r->deleted) {
        ms_queue_done(s->queue, qp);
    } else {
        if (s->reporter.unschedulable)
            s->reporter.unschedulable(s->reporter.ctx, qp->pod, message, qp->attempts);
        qp->unschedulable_plugins = 0;
        qp->interest = MS_EV_ALL;
        ms_queue_add_unschedulable(s->queue, qp, r->cycle.cycle, now);
    }
    ms_sched_record_release(s, r);
}

/* Waits that reached their deadline: let through (simulate) or rejected
 * with upstream's timeout message. */
static void resolve_waits(ms_scheduler *s, double now) {
    for (uint32_t i = 0; i < s->nwaiting;) {
        ms_inflight *r = s->waiting[i];
        if (r->deadline > now) {
            i++;
            continue;
        }
        if (s->permit_timeout_allows) {
            unpark(s, r);
            ms_sched_start_binding(s, r, r->report, now);
        } else {
            ms_sched_reject_waiting(s, r, "rejected due to timeout after waiting at Permit", false,
                                    now);
        }
        i = 0;   /* the list changed under us */
    }
}

void ms_scheduler_tick(ms_scheduler *s, double now) {
    resolve_waits(s, now);
    ms_queue_flush(s->queue, now);
    /* Expired assumptions free what they held, like a deleted pod. */
    if (ms_cache_cleanup_assumed(s->cache, now) > 0)
        ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
    ms_sched_flush_permits(s, now);
    /* With no cycle running, the snapshot would keep the last cycle's view
     * and with it every pod the cache has replaced since (assumed copies
     * that the informer's bound versions confirmed, and the objects they
     * were copied from). The update is O(changed), as at a cycle start. */
    if (ms_cache_update_snapshot(s->cache, &s->snap) == MS_OK) ms_sched_release_evicted(s);
}

/* ---- Permit releases ------------------------------------------------- */

static ms_inflight *waiting_by_uid(const ms_scheduler *s, const char *uid) {
    if (!uid || !*uid) return NULL;
    ms_inflight *r = ms_map_get(&s->binding, ms_hash_bytes(uid, strlen(uid)));
    return r && r->waiting ? r : NULL;
}

static void release(ms_scheduler *s, ms_inflight *r, bool allow, const char *reason, double now) {
    if (allow) {
        unpark(s, r);
        ms_sched_start_binding(s, r, r->report, now);
    } else {
        ms_sched_reject_waiting(s, r, reason && *reason ? reason : "rejected while waiting at Permit",
                                false, now);
    }
}

bool ms_scheduler_permit_allow(ms_scheduler *s, const char *uid, double now) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    release(s, r, true, NULL, now);
    ms_sched_flush_permits(s, now);
    return true;
}

bool ms_scheduler_permit_deny(ms_scheduler *s, const char *uid, const char *reason, double now) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    release(s, r, false, reason, now);
    ms_sched_flush_permits(s, now);
    return true;
}

bool ms_scheduler_permit_later(ms_scheduler *s, const char *uid, bool allow, const char *reason) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    if (s->nlater == s->latercap) {
        uint32_t cap = s->latercap ? s->latercap * 2 : 16;
        ms_permit_request *l = realloc(s->later, cap * sizeof *l);
        if (!l) return false;
        s->later = l;
        s->latercap = cap;
    }
    ms_permit_request *q = &s->later[s->nlater++];
    q->uid_hash = r->qp->pod->meta.uid_hash;
    q->allow = allow;
    snprintf(q->reason, sizeof q->reason, "%s", reason ? reason : "");
    return true;
}

void ms_sched_flush_permits(ms_scheduler *s, double now) {
    /* A release runs plugins (Unreserve of a denied pod) that may ask for
     * more: take the list, apply it, and look again. */
    while (s->nlater > 0) {
        ms_permit_request q = s->later[0];
        memmove(s->later, s->later + 1, (s->nlater - 1) * sizeof *s->later);
        s->nlater--;
        ms_inflight *r = ms_map_get(&s->binding, q.uid_hash);
        if (r && r->waiting) release(s, r, q.allow, q.reason, now);
    }
}

/* ---- out-of-tree plugins that change --------------------------------- */

ms_rc ms_scheduler_check_plugin_ops(const ms_scheduler *s, const ms_plugin_ops *live,
                                    const ms_plugin_ops *candidate, ms_error *err) {
    const char *sort0 = queue_sort_name(&s->profiles[0]);
    for (uint32_t i = 0; i < s->nprofiles; i++) {
        const char *sort = queue_sort_name(&s->profiles[i]);
        if (ms_framework_runs(&s->profiles[i], live)) {
            ms_rc rc = ms_framework_check_ops(&s->profiles[i], &s->pcs[i], live, candidate, &sort, err);
            if (rc != MS_OK) return rc;
        }
        if (i == 0) sort0 = sort;
        ms_rc rc = same_queue_sort(s, i, sort0, sort, err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

/* The cycle buffers hold a row per Score plugin of the largest profile. */
static ms_rc grow_score_rows(ms_scheduler *s, uint32_t old_rows) {
    if (s->max_nscore <= old_rows || s->cap == 0) return MS_OK;
    int64_t *pp = realloc(s->per_plugin, (size_t)s->max_nscore * s->cap * sizeof *pp);
    if (!pp) return MS_ENOMEM;
    s->per_plugin = pp;
    return MS_OK;
}

ms_rc ms_scheduler_plugin_reloaded(ms_scheduler *s, const ms_plugin_ops *ops, ms_event_mask ev,
                                   double now, ms_error *err) {
    ms_rc rc = MS_OK;
    uint32_t rows = s->max_nscore ? s->max_nscore : 1;
    bool sorts = false;
    for (uint32_t i = 0; i < s->nprofiles; i++) {
        if (!ms_framework_runs(&s->profiles[i], ops)) continue;
        ms_rc one = ms_framework_refresh_points(&s->profiles[i], &s->pcs[i], err);
        if (one != MS_OK) rc = one;
        refresh_info(s, i);
        const ms_framework *fw = &s->profiles[i];
        if (fw->norder[MS_EP_QUEUE_SORT] && fw->plugins[fw->order[MS_EP_QUEUE_SORT][0]].ops == ops)
            sorts = true;
    }
    if (grow_score_rows(s, rows) != MS_OK) {
        /* The next cycle needing the rows grows them or fails cleanly. */
        free(s->per_plugin);
        s->per_plugin = NULL;
        s->cap = 0;
    }
    if (sorts) ms_queue_reorder(s->queue);
    if (ev) ms_queue_move_on_event(s->queue, ev, now);
    return rc;
}
