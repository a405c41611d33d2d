/* The scheduler object: construction from a configuration, preemption's
 * callbacks, binding outcomes, housekeeping and out-of-tree plugin
 * reloads. Cluster deltas are in event_handlers.c, pods waiting on Permit
 * in waiting_pods.c, the scheduling cycle in schedule_one.c. */
#include "moonsched/scheduler.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pdb_set.h"
#include "api/workload_set.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "base/array.h"
#include "base/map.h"
#include "framework/plugins/dynamic_resources.h"
#include "framework/runners.h"
#include "moonsched/nodeinfo.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/cycle_trace.h"
#include "scheduler/evictions.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/scheduler_priv.h"
#include "scheduler/shadow.h"

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
    r->prebinding = false;
    r->prebind_next = 0;
    r->prebind_plugin = -1;
    r->prebind_deadline = 0;
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

/* ---- construction ---------------------------------------------------- */

static ms_rc sched_bind(void *ctx, const ms_pod *pod, ms_str node) {
    ms_scheduler *s = ctx;
    if (!s->binder.bind) return MS_ESTATE;
    return s->binder.bind(s->binder.ctx, pod, node);
}

/* ---- preemption's callbacks (handle.evict, handle.clear_nomination) ---- */

/* Keeps the victim alive until the next snapshot update: evicting it may
 * drop the cache's reference while the cycle still reads it. */
static bool hold_victim(ms_scheduler *s, ms_pod *victim) {
    if (!ms_array_grow((void **)&s->evicted, &s->evictcap, s->nevicted + 1, sizeof *s->evicted))
        return false;
    s->evicted[s->nevicted++] = ms_pod_ref(victim);
    return true;
}

void ms_sched_release_evicted(ms_scheduler *s) {
    for (uint32_t i = 0; i < s->nevicted; i++) ms_pod_unref(s->evicted[i]);
    s->nevicted = 0;
}

/* (the map holds no NULL value) */
static bool mark_deletion_requested(ms_scheduler *s, uint64_t uid) {
    return ms_map_put(&s->deletion_requested, uid, (void *)1) == 0;
}

uint32_t ms_scheduler_deletions_requested(const ms_scheduler *s) {
    return (uint32_t)s->deletion_requested.len;
}

void ms_sched_deletion_seen(ms_scheduler *s, uint64_t uid) {
    if (s->deletion_requested.len) ms_map_del(&s->deletion_requested, uid);
}

void ms_scheduler_eviction_failed(ms_scheduler *s, uint64_t uid_hash) { ms_sched_deletion_seen(s, uid_hash); }

/* upstream PrepareCandidate, per victim: a pod waiting on Permit is
 * rejected (it is not bound yet, so there is nothing to delete), any other
 * goes to the evictor. */
static ms_rc sched_evict(void *ctx, ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    ms_scheduler *s = ctx;
    if (!hold_victim(s, victim)) return MS_ENOMEM;
    ms_inflight *r = ms_sched_binding_record(s, victim->meta.uid_hash);
    if (r && r->waiting) {
        ms_sched_reject_waiting(s, r, "preempted", false, s->now);
    } else {
        if (!s->evictor.evict) return MS_ESTATE;
        /* Marked before the call: an evictor that deletes at once (simulate)
         * clears the mark through the delete handler. */
        uint64_t uid = victim->meta.uid_hash;
        if (!mark_deletion_requested(s, uid)) return MS_ENOMEM;
        ms_rc rc = s->evictor.evict(s->evictor.ctx, victim, preemptor, node);
        if (rc != MS_OK) {
            ms_map_del(&s->deletion_requested, uid);
            return rc;
        }
    }
    if (s->reporter.preempted) s->reporter.preempted(s->reporter.ctx, victim, preemptor, node);
    if (s->nobservers) ms_sched_observe_victim(s, victim);
    return MS_OK;
}

static void sched_clear_nomination(void *ctx, ms_pod *pod) {
    ms_scheduler *s = ctx;
    ms_queue_delete_nominated(s->queue, pod);
    if (s->evictor.set_nomination) s->evictor.set_nomination(s->evictor.ctx, pod, MS_STR_NONE);
}

/* PreEnqueue of the pod's own profile (the queue is shared by all). A
 * refusal waits for the events the refusing plugin registered, and is
 * reported when the pod was not gated before. */
static bool sched_pre_enqueue(void *ctx, const ms_queued_pod *qp, ms_event_mask *interest) {
    ms_scheduler *s = ctx;
    const ms_pod *pod = qp->pod;
    int32_t i = ms_scheduler_profile_index(s, pod->scheduler_name);
    if (i < 0) return false;
    const ms_framework *fw = &s->profiles[i];
    const char *reason = NULL;
    int32_t plugin = -1;
    if (ms_framework_pre_enqueue(fw, pod, &reason, &plugin)) return true;
    *interest = ms_framework_interest(fw, plugin >= 0 && plugin < 64 ? 1ull << plugin : 0);
    if (!qp->gated && s->reporter.gated)
        s->reporter.gated(s->reporter.ctx, pod, ms_framework_plugin_name(fw, plugin), reason ? reason : "");
    return false;
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

/* The hooks the policies' layer gives this profile's DefaultPreemption
 * and DynamicResources. */
static void attach_policy_hooks(ms_scheduler *s, uint32_t i, const ms_profile_config *pc,
                                const ms_scheduler_options *o) {
    const ms_scheduler_policy_hooks *ph = &o->policy_hooks;
    const ms_preemption_hooks *h = ph->preemption ? ph->preemption(ph->ctx, i, pc) : NULL;
    if (h) ms_default_preemption_set_hooks(&s->profiles[i], h);
    const ms_dra_hooks *d = ph->devices ? ph->devices(ph->ctx, i, pc) : NULL;
    if (d) ms_dynamic_resources_set_hooks(&s->profiles[i], d);
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

/* DefaultPreemption's way to the extenders' preempt verb, through the
 * handle, so the framework does not call the scheduler's extenders itself. */
static ms_rc extenders_preempt(void *preempt_ctx, const ms_pod *pod, const ms_snapshot *snap,
                               struct ms_preemption_candidate **cands, uint32_t *ncands,
                               ms_arena *a, ms_error *err) {
    ms_scheduler *s = preempt_ctx;
    return ms_extenders_preempt(s->ext, pod, snap, cands, ncands, a, err);
}

/* Extenders from the configuration; *ignored receives the names of the
 * resources they manage with ignoredByScheduler (NULL when none). */
static ms_rc init_extenders(ms_scheduler *s, const ms_config *cfg, const ms_http_caller *http, cJSON **ignored,
                            ms_error *err) {
    *ignored = NULL;
    ms_extender_config *ec = NULL;
    uint32_t n = 0;
    ms_rc rc = ms_extender_configs_parse(cfg->extenders, &ec, &n, NULL, NULL, NULL, err);
    if (rc != MS_OK || n == 0) return rc;
    rc = ms_extenders_new(ec, n, s->in, http, &s->ext, err);
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
    if (s->ext) s->handle.extenders_preempt = extenders_preempt;
    /* extenders receive the objects as the API server sent them */
    s->dec.keep_raw = s->dec.keep_raw || s->ext != NULL;
    return rc;
}

/* Fills the arrays allocated by ms_scheduler_new; `copy` is room for a
 * profile changed by with_ignored_resources, `live` for the profile
 * without its shadow policies. */
static ms_rc init_profiles_with(ms_scheduler *s, const ms_config *cfg, const ms_scheduler_options *o,
                                const cJSON *ignored, ms_profile_config *copy, ms_profile_config *live,
                                ms_error *err) {
    for (uint32_t i = 0; i < cfg->nprofiles; i++) {
        /* The profile's own out-of-tree plugins first, then the shared ones. */
        uint32_t nown = o->profile_out_of_tree && o->n_profile_out_of_tree
                            ? o->n_profile_out_of_tree[i] : 0;
        uint32_t nall = nown + o->n_out_of_tree;
        const ms_plugin_ops **oot = nall ? calloc(nall, sizeof *oot) : NULL;
        if (nall && !oot) return ms_error_set(err, MS_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < nown; k++) oot[k] = o->profile_out_of_tree[i][k];
        for (uint32_t k = 0; k < o->n_out_of_tree; k++) oot[nown + k] = o->out_of_tree[k];
        ms_rc rc = ms_shadow_build(s, i, &cfg->profiles[i], cfg->percentage_of_nodes_to_score, oot, nall, live,
                                   err);
        const ms_profile_config *pc = live;
        s->pcs[i] = *pc;
        for (uint32_t k = 0; k < s->pcs[i].nplugins; k++) s->pcs[i].plugins[k].args = NULL;
        cJSON *own = NULL;
        if (rc == MS_OK && ignored && (rc = with_ignored_resources(pc, ignored, copy, &own, err)) == MS_OK)
            pc = copy;
        if (rc == MS_OK)
            rc = ms_framework_init_with(&s->profiles[i], pc, cfg->percentage_of_nodes_to_score,
                                        &s->handle, oot, nall, err);
        cJSON_Delete(own);
        free(oot);
        pc = live;
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
        attach_policy_hooks(s, i, pc, o);
        rc = same_queue_sort(s, i, queue_sort_name(&s->profiles[0]),
                             queue_sort_name(&s->profiles[i]), err);
        if (rc != MS_OK) return rc;
    }
    return MS_OK;
}

static ms_rc init_profiles(ms_scheduler *s, const ms_config *cfg, const ms_scheduler_options *o,
                           const cJSON *ignored, ms_error *err) {
    ms_profile_config *copy = ignored ? malloc(sizeof *copy) : NULL;
    ms_profile_config *live = malloc(sizeof *live);
    ms_rc rc = (ignored && !copy) || !live ? ms_error_set(err, MS_ENOMEM, "out of memory")
                                           : init_profiles_with(s, cfg, o, ignored, copy, live, err);
    free(copy);
    free(live);
    return rc;
}

/* The cache, the handle the plugins share, the per-profile arrays and the
 * queue: everything the profiles' frameworks are built on. */
static ms_rc init_state(ms_scheduler *s, const ms_config *cfg, const ms_scheduler_options *o, ms_error *err) {
    s->cache = ms_cache_new(s->in, cfg->assumed_ttl);
    s->handle.in = s->in;
    s->handle.rn = &s->dec.rn;
    s->handle.scratch = ms_node_info_new(MS_STR_NONE);
    if (s->handle.scratch) s->handle.scratch->scratch = true;
    s->handle.wildcard_ip = ms_intern_cstr(s->in, "0.0.0.0");
    s->handle.bind = sched_bind;
    s->handle.bind_ctx = s;
    s->handle.namespaces = &s->namespaces;
    s->volumes = ms_volume_store_new(s->in);
    s->handle.volumes = s->volumes;
    s->handle.volume_binder = o->volume_binder;
    s->dra = ms_dra_store_new();
    s->handle.claim_writer = o->claim_writer;
    s->pdbs = ms_pdb_set_new();
    s->handle.pdbs = s->pdbs;
    s->workloads = ms_workload_set_new();
    s->handle.workloads = s->workloads;
    s->handle.rng = &s->rng;
    s->handle.evict = o->evictor.evict ? sched_evict : NULL;
    s->handle.deletion_requested = &s->deletion_requested;
    s->handle.no_disruption_conditions = o->no_disruption_conditions;
    s->handle.clear_nomination = sched_clear_nomination;
    s->handle.preempt_ctx = s;
    s->profiles = calloc(cfg->nprofiles, sizeof *s->profiles);
    s->info = calloc(cfg->nprofiles, sizeof *s->info);
    s->pcs = calloc(cfg->nprofiles, sizeof *s->pcs);
    if (!s->cache || !s->pdbs || !s->workloads || !s->volumes || !s->dra || !s->handle.scratch || s->handle.wildcard_ip == MS_STR_NONE ||
        !s->profiles || !s->info || !s->pcs)
        return ms_error_set(err, MS_ENOMEM, "out of memory");

    /* The queue exists before the plugins, which may keep the handle that
     * points at it. Its QueueSort is profile 0's framework, initialised
     * later, before any pod arrives. */
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
    if (!s->queue) return ms_error_set(err, MS_ENOMEM, "out of memory");
    s->handle.queue = s->queue;
    return MS_OK;
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
    ms_map_init(&s->deletion_requested);
    ms_node_memo_init(&s->memo);
    ms_map_init(&s->traces);
    s->trace_pods = o->trace_pods;
    ms_decoder_init(&s->dec, s->in);
    s->dec.keep_raw = o->keep_objects;

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

    if ((rc = init_state(s, cfg, o, err)) != MS_OK) goto fail;
    uint32_t ncycles = o->explain_cycles < 0    ? 0
                       : o->explain_cycles == 0 ? MS_EXPLAIN_DEFAULT_CYCLES
                                                : (uint32_t)o->explain_cycles;
    if (!ms_explain_ring_init(&s->explain, ncycles, s->in)) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto fail;
    }

    cJSON *ignored = NULL;
    rc = init_extenders(s, cfg, o->http, &ignored, err);
    if (rc == MS_OK) rc = init_profiles(s, cfg, o, ignored, err);
    cJSON_Delete(ignored);
    if (rc != MS_OK) goto fail;
    ms_sched_observers_init(s);

    if (o->record_metrics && !(s->metrics = ms_sched_metrics_new(s->nprofiles))) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto fail;
    }
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
    ms_map_free(&s->deletion_requested);
    free(s->waiting);
    free(s->prebinding);
    ms_sched_release_evicted(s);
    free(s->evicted);
    for (uint32_t i = 0; i < s->nprofiles; i++) ms_framework_destroy(&s->profiles[i]);
    ms_shadow_free_all(s);
    ms_extenders_free(s->ext);
    free(s->profiles);
    free(s->info);
    free(s->pcs);
    free(s->later);
    ms_sched_metrics_free(s->metrics);
    if (s->queue) ms_queue_free(s->queue);
    ms_snapshot_free(&s->snap);
    ms_namespaces_free(&s->namespaces);
    ms_volume_store_free(s->volumes);
    ms_dra_store_free(s->dra);
    if (s->cache) ms_cache_free(s->cache);
    if (s->pdbs) ms_pdb_set_free(s->pdbs);
    ms_workload_set_free(s->workloads);
    if (s->handle.scratch) ms_node_info_free(s->handle.scratch);
    while (s->free_records) {
        ms_inflight *r = s->free_records;
        s->free_records = r->next_free;
        ms_arena_free(&r->arena);
        free(r);
    }
    free(s->statuses);
    free(s->feasible);
    free(s->feasible_at);
    ms_node_memo_free(&s->memo);
    free(s->totals);
    free(s->per_plugin);
    ms_buf_free(&s->msg);
    ms_explain_ring_free(&s->explain);
    ms_sched_traces_free(s);
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

ms_queue *ms_scheduler_queue(ms_scheduler *s) { return s->queue; }
const ms_decoder *ms_scheduler_decoder(const ms_scheduler *s) { return &s->dec; }
ms_cache *ms_scheduler_cache(ms_scheduler *s) { return s->cache; }
uint32_t ms_scheduler_nprofiles(const ms_scheduler *s) { return s->nprofiles; }

const ms_framework *ms_scheduler_profile(const ms_scheduler *s, uint32_t i) {
    return i < s->nprofiles ? &s->profiles[i] : NULL;
}

/* ---- binding outcomes ------------------------------------------------ */

/* Unreserve and forget a pod whose bind did not happen. The cache keeps
 * a pod the informer has meanwhile reported bound (forget refuses it). */
static void undo_assumption(ms_scheduler *s, ms_inflight *r, double now) {
    const ms_framework *fw = &s->profiles[r->profile];
    ms_framework_run_unreserve(fw, &r->cycle, r->node);
    ms_cache_forget_pod(s->cache, r->assumed);
    /* What the pod held is free again. The pod itself is not in the queue
     * yet, so the move cannot pick it up. */
    ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET, now);
}

void ms_sched_binding_failed(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now) {
    ms_explain_ring_complete(&s->explain, r->cycle.cycle, r->qp->pod->meta.uid_hash, MS_EXPLAIN_BIND_FAILED,
                             message ? message : "binding failed");
    undo_assumption(s, r, now);
    if (s->reporter.bind_failed)
        s->reporter.bind_failed(s->reporter.ctx, r->qp->pod, r->node,
                                message ? message : "binding failed");
    if (gone || r->deleted) {
        ms_queue_done(s->queue, r->qp);
    } else {
        if (s->reporter.binding_error)
            s->reporter.binding_error(s->reporter.ctx, r->qp->pod, message ? message : "binding failed");
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
    ms_explain_ring_complete(&s->explain, r->cycle.cycle, pod->meta.uid_hash, MS_EXPLAIN_BOUND, NULL);
    if (r->deleted) {
        /* Deleted while its bind was in flight: nothing will confirm the
         * assumption, and assumed pods never expire. */
        if (ms_cache_remove_pod(s->cache, r->assumed) == MS_OK)
            ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE, now);
    } else {
        ms_cache_finish_binding(s->cache, r->assumed, now);
    }
    if (s->metrics) ms_sched_metrics_scheduled(s->metrics, r->qp, now);
    ms_framework_run_post_bind(&s->profiles[r->profile], r->assumed, r->node);
    ms_queue_done(s->queue, r->qp);
    ms_sched_record_release(s, r);
    ms_sched_flush_permits(s, now);
}

void ms_scheduler_bind_conflict(ms_scheduler *s, const ms_pod *pod, ms_bind_conflict why,
                                const char *message, double now) {
    ms_inflight *r = ms_map_get(&s->binding, pod->meta.uid_hash);
    if (!r || r->waiting) return;   /* never handed to the binder */
    if (why == MS_BIND_CONFLICT_OTHER) {
        ms_scheduler_bind_done(s, pod, false, false, message, now);
        return;
    }
    ms_map_del(&s->binding, pod->meta.uid_hash);
    ms_explain_ring_complete(&s->explain, r->cycle.cycle, pod->meta.uid_hash, MS_EXPLAIN_BIND_FAILED, message);
    undo_assumption(s, r, now);
    if (why == MS_BIND_CONFLICT_GATED && !r->deleted) {
        /* Gated on the server: like SchedulingGates' refusals, only the
         * pod's own update can lift that (with or without the plugin in
         * the profile). */
        r->qp->unschedulable_plugins = 0;
        ms_queue_add_gated(s->queue, r->qp, MS_EV_UNSCHEDULED_POD_UPDATE, now);
    } else {
        /* Bound elsewhere, replaced or being deleted: the informer's
         * events say what became of it; nothing is left to retry. */
        ms_queue_done(s->queue, r->qp);
    }
    ms_sched_record_release(s, r);
    ms_sched_flush_permits(s, now);
}

void ms_scheduler_tick(ms_scheduler *s, double now) {
    ms_sched_resolve_waits(s, now);
    ms_sched_prebind_deadlines(s, now);
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

/* ---- out-of-tree plugins that change --------------------------------- */

ms_rc ms_scheduler_check_plugin_ops(const ms_scheduler *s, const ms_plugin_ops *live,
                                    const ms_plugin_ops *candidate, ms_error *err) {
    ms_rc shadow_rc = ms_shadow_check_ops(s, live, candidate, err);
    if (shadow_rc != MS_OK) return shadow_rc;
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

/* The cycle buffers and the memo hold a row per Score plugin of the
 * largest profile (a memo with too few rows is not used). */
static ms_rc grow_score_rows(ms_scheduler *s, uint32_t old_rows) {
    if (s->max_nscore <= old_rows || s->cap == 0) return MS_OK;
    int64_t *pp = realloc(s->per_plugin, (size_t)s->max_nscore * s->cap * sizeof *pp);
    if (!pp) return MS_ENOMEM;
    s->per_plugin = pp;
    return ms_node_memo_reserve(&s->memo, s->cap, s->max_nscore) ? MS_OK : MS_ENOMEM;
}

ms_rc ms_scheduler_plugin_reloaded(ms_scheduler *s, const ms_plugin_ops *ops, ms_event_mask ev,
                                   double now, ms_error *err) {
    ms_rc rc = MS_OK;
    uint32_t rows = s->max_nscore ? s->max_nscore : 1;
    bool sorts = false;
    ms_shadow_refresh(s, ops);
    /* A shadow policy's new version changes no live decision: no pod
     * moves, and the live cycles' policy generation stays. */
    bool live = false;
    for (uint32_t i = 0; i < s->nprofiles; i++) live = live || ms_framework_runs(&s->profiles[i], ops);
    if (!live) return MS_OK;
    s->policy_generation++;
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
