/* `run`'s scheduler thread: see run/scheduler_loop.h. Everything here
 * runs on that thread, except what the comments say runs elsewhere (a
 * /debug/snapshot written on the connection's thread). */
#include "run/scheduler_loop.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "backend/queue.h"
#include "base/clock.h"
#include "run/snapshot.h"
#include "scheduler/apply.h"
#include "scheduler/cluster_view.h"
#include "scheduler/dra_events.h"
#include "scheduler/evictions.h"
#include "scheduler/explain.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/shadow.h"
#include "scheduler/storage_events.h"
#include "simulate/explain_text.h"
ms_run_stats ms_scheduler_loop_stats(const ms_scheduler_loop *r) {
    ms_run_stats st = r->st;
    if (r->poster) {
        ms_poster_stats ps;
        ms_poster_stats_get(r->poster, &ps);
        st.events_posted = ps.events_posted;
        st.events_failed = ps.events_failed;
        st.events_suppressed = ps.events_suppressed;
        st.status_patches = ps.status_patches;
    }
    if (r->reporter) st.status_patches_skipped = ms_api_reporter_patches_skipped(r->reporter);
    return st;
}

/* ---- metrics (scheduler thread) ------------------------------------------ */

static uint32_t profile_of_pod(ms_scheduler_loop *r, const ms_pod *pod) {
    int32_t i = ms_scheduler_profile_index(r->sched, pod->scheduler_name);
    return i < 0 ? 0 : (uint32_t)i;
}

/* An attempt that ended without a bind: inside schedule_one its duration
 * is known when the call returns (schedule_one_measured); outside (a
 * Permit wait rejected later) only the count is kept. */
static void attempt_failed(ms_scheduler_loop *r, const ms_pod *pod) {
    ms_attempt_result res = r->cycle_error ? MS_ATTEMPT_ERROR : MS_ATTEMPT_UNSCHEDULABLE;
    r->cycle_error = false;
    if (r->in_cycle) {
        r->cycle_result = (int)res;
        r->cycle_profile = profile_of_pod(r, pod);
    } else {
        ms_metrics_attempt(r->metrics->scheduler, profile_of_pod(r, pod), res, -1);
    }
}

static bool schedule_one_measured(ms_scheduler_loop *r) {
    r->in_cycle = true;
    r->cycle_error = false;
    r->cycle_result = -1;
    r->cycle_victims = 0;
    r->cycle_start = ms_clock_monotonic();
    bool popped = ms_scheduler_schedule_one(r->sched, ms_clock_wall());
    r->in_cycle = false;
    if (r->cycle_result == MS_ATTEMPT_UNSCHEDULABLE || r->cycle_result == MS_ATTEMPT_ERROR)
        ms_metrics_attempt(r->metrics->scheduler, r->cycle_profile, (ms_attempt_result)r->cycle_result,
                           ms_clock_monotonic() - r->cycle_start);
    return popped;
}

static bool all_synced(const ms_scheduler_loop *r);

/* moonsched_shadow_decisions_total and _skipped_total from the scheduler's counts. */
static void shadow_metrics(ms_scheduler_loop *r) {
    uint32_t n = ms_scheduler_shadow_count(r->sched);
    if (n == 0) return;
    ms_shadow_figures *v = calloc(n, sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < n; i++) {
        const ms_shadow *sh = ms_scheduler_shadow_at(r->sched, i);
        v[i] = (ms_shadow_figures){ms_scheduler_profile_name(r->sched, sh->profile), sh->plugin, sh->agree,
                                   sh->disagree, sh->skipped};
    }
    ms_policy_metrics_set_shadows(r->metrics->policies, v, n);
    free(v);
}

/* The figures that are states rather than events, at cycle boundaries. */
static void metrics_snapshot(ms_scheduler_loop *r) {
    ms_queue *q = ms_scheduler_queue(r->sched);
    ms_metrics_set_pending(r->metrics->scheduler, ms_queue_len_active(q), ms_queue_len_backoff(q),
                           ms_queue_len_unschedulable(q), ms_queue_len_gated(q));
    ms_run_stats st = ms_scheduler_loop_stats(r);
    ms_api_metrics_events(r->metrics->api, st.events_posted, st.events_failed, st.events_suppressed);
    ms_metrics_set_binds_in_flight(r->metrics->scheduler, ms_api_binder_in_flight(r->binder));
    double now = ms_clock_monotonic();
    if (now >= r->next_sched_metrics) {
        /* The scheduler's own families: rendered here, where they are
         * owned, about once a second (a scrape may see them that old). */
        ms_buf b = {0};
        ms_scheduler_render_metrics(r->sched, &b);
        size_t len = b.len;
        ms_metrics_set_scheduler_text(r->metrics->scheduler, ms_buf_take(&b), len);
        r->next_sched_metrics = now + 1;
    }
    /* ready: scheduling has started, every informer's first LIST is in */
    ms_endpoints_set_ready(r->endpoints, all_synced(r));
    uint32_t n = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (n && r->policy_snap) {
        const ms_policy_info *closed = NULL;   /* a profile that places no pod */
        for (uint32_t i = 0; i < n; i++) {
            ms_policy_info *info = &r->policy_info[i];
            ms_policy_set_info(r->policies, i, info);
            r->policy_snap[i] = (ms_policy_figures){info->profile,           info->plugin,
                                                    info->stats.calls,       info->stats.failures,
                                                    info->stats.budget_kills, info->stats.reloads_ok,
                                                    info->stats.reloads_failed, info->disabled};
            if (info->load_error && !info->fail_open && !closed) closed = info;
        }
        ms_policy_metrics_set_policies(r->metrics->policies, r->policy_snap, n);
        char why[768] = "";
        if (closed)
            snprintf(why, sizeof why, "profile %s places no pod: policy %.500s (from %s)", closed->profile,
                     closed->load_error, closed->file);
        ms_endpoints_set_unready_reason(r->endpoints, why);
    }
    shadow_metrics(r);
}

/* ---- binder, evictor and reporter callbacks (scheduler thread) ---------- */

static ms_rc run_bind(void *ctx, const ms_pod *pod, ms_str node) {
    ms_scheduler_loop *r = ctx;
    double start = r->in_cycle ? r->cycle_start : ms_clock_monotonic();
    return ms_api_binder_bind(r->binder, pod, ms_str_get(r->in, node), start, profile_of_pod(r, pod));
}

static ms_rc run_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    ms_scheduler_loop *r = ctx;
    (void)node;
    return ms_api_reporter_evict(r->reporter, victim, preemptor) ? MS_OK : MS_ENOMEM;
}

/* A victim's DisruptionTarget patch or DELETE failed: it may be chosen
 * again at once, rather than left counted as terminating. */
static void victim_not_deleted(void *ctx, uint64_t victim) {
    ms_scheduler_loop *r = ctx;
    if (r->sched) ms_scheduler_eviction_failed(r->sched, victim);
}

static void run_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    ms_scheduler_loop *r = ctx;
    ms_api_reporter_nominate(r->reporter, pod, node == MS_STR_NONE ? NULL : ms_str_get(r->in, node));
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    ms_scheduler_loop *r = ctx;
    (void)attempts;
    r->st.unschedulable++;
    bool error = r->cycle_error;   /* attempt_failed consumes it */
    attempt_failed(r, pod);
    ms_api_reporter_unschedulable(r->reporter, pod, error, message);
}

static void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *message) {
    ms_scheduler_loop *r = ctx;
    /* Inside the cycle: PreBind or an extender's bind failed before any
     * request of ours (those are counted when they complete). */
    if (r->in_cycle) {
        r->cycle_result = MS_ATTEMPT_ERROR;
        r->cycle_profile = profile_of_pod(r, pod);
    }
    char key[512];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_INFO, "binding failed", "pod", key, "node", ms_str_get(r->in, node), "error", message,
           NULL);
}

static void on_binding_error(void *ctx, const ms_pod *pod, const char *message) {
    ms_scheduler_loop *r = ctx;
    ms_api_reporter_binding_error(r->reporter, pod, message);
}

/* Held back by PreEnqueue: not an attempt. Gates get their condition; a
 * policy's refusal is only logged (upstream reports neither). */
static void on_gated(void *ctx, const ms_pod *pod, const char *plugin, const char *reason) {
    ms_scheduler_loop *r = ctx;
    if (strcmp(plugin, "SchedulingGates") == 0) {
        ms_api_reporter_gated(r->reporter, pod, reason);
        return;
    }
    char key[512];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, "held back by PreEnqueue", "pod", key, "plugin", plugin, "reason", reason,
           NULL);
}

static void on_preempted(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    ms_scheduler_loop *r = ctx;
    r->cycle_victims++;
    ms_api_reporter_preempted(r->reporter, victim, preemptor, ms_str_get(r->in, node));
}

static void on_cycle_error(void *ctx, const ms_pod *pod, const char *message) {
    ms_scheduler_loop *r = ctx;
    (void)pod;
    (void)message;
    r->cycle_error = true;
}

static void on_post_filter(void *ctx, const ms_pod *pod, ms_str nominated) {
    ms_scheduler_loop *r = ctx;
    (void)pod;
    ms_metrics_preemption(r->metrics->scheduler, nominated != MS_STR_NONE ? r->cycle_victims : 0);
    r->cycle_victims = 0;
}

/* What each 409 means for the pod, for the log. */
static const char *const conflict_meaning[MS_BIND_CONFLICT_COUNT] = {
    [MS_BIND_CONFLICT_OTHER] = "refused for another reason: retried after backoff",
    [MS_BIND_CONFLICT_ALREADY_BOUND] = "bound by someone else meanwhile: the assumption is forgotten, "
                                       "the pod's update brings the binding",
    [MS_BIND_CONFLICT_GATED] = "gated on the API server: back among the gated pods until its update",
    [MS_BIND_CONFLICT_UID_CHANGED] = "deleted and created again under the same name: this one is dropped",
    [MS_BIND_CONFLICT_BEING_DELETED] = "being deleted: dropped",
};

/* A 409: logged with its meaning, counted by reason, and handed to the
 * scheduler, which does what it means for its cache and queue. */
static void bind_conflict(ms_scheduler_loop *r, const ms_bind_outcome *o) {
    ms_metrics_bind_conflict(r->metrics->scheduler, o->why);
    if (o->why == MS_BIND_CONFLICT_OTHER || o->why == MS_BIND_CONFLICT_GATED) r->st.binds_failed++;
    else r->st.binds_gone++;
    char key[512];
    ms_pod_key(o->pod, r->in, key, sizeof key);
    ms_log(r->log, o->why == MS_BIND_CONFLICT_OTHER ? MS_LOG_WARN : MS_LOG_INFO, "binding conflict", "pod", key,
           "node", o->node, "reason", ms_metrics_conflict_name(o->why), "meaning", conflict_meaning[o->why],
           "error", o->message, NULL);
    ms_scheduler_bind_conflict(r->sched, o->pod, o->why, o->message, ms_clock_wall());
}

/* Where a bind's time went (-v=4 and up): the cycle up to the bind's
 * submission, the wait in the client's queue, the API server's answer, and
 * the wait for the scheduler thread to take the answer in; "at" is the
 * answer's time on the monotonic clock, so that binds can be lined up. */
static void log_bind_times(ms_scheduler_loop *r, const ms_bind_outcome *o, double now) {
    char key[512], at[24], cycle[16], queued[16], server[16], handback[16];
    ms_pod_key(o->pod, r->in, key, sizeof key);
    double sent = o->sent > 0 ? o->sent : o->answered;
    snprintf(at, sizeof at, "%.6f", o->answered);
    snprintf(cycle, sizeof cycle, "%.3f", 1e3 * (o->submitted - o->attempt_start));
    snprintf(queued, sizeof queued, "%.3f", 1e3 * (sent - o->submitted));
    snprintf(server, sizeof server, "%.3f", 1e3 * (o->answered - sent));
    snprintf(handback, sizeof handback, "%.3f", 1e3 * (now - o->answered));
    ms_log(r->log, MS_LOG_DEBUG, "bind answered", "pod", key, "ok", o->ok ? "true" : "false", "at", at,
           "cycle_ms", cycle, "queued_ms", queued, "server_ms", server, "handback_ms", handback, NULL);
}

/* A bind answered. Upstream counts a scheduled attempt once its binding
 * succeeded, and a failed binding as an error. */
static void bind_done(void *ctx, const ms_bind_outcome *o) {
    ms_scheduler_loop *r = ctx;
    double now = ms_clock_monotonic(), took = now - o->attempt_start;
    if (ms_log_enabled(r->log, MS_LOG_DEBUG)) log_bind_times(r, o, now);
    ms_metrics_binding(r->metrics->scheduler, o->ok         ? MS_BIND_OK
                                   : o->conflict ? MS_BIND_CONFLICT
                                   : o->gone     ? MS_BIND_GONE
                                                 : MS_BIND_FAILED);
    ms_metrics_attempt(r->metrics->scheduler, o->profile, o->ok ? MS_ATTEMPT_SCHEDULED : MS_ATTEMPT_ERROR, took);
    if (o->ok) {
        /* Failed attempts before this one, as the unschedulable reports
         * counted them (the report is forgotten once bound). */
        ms_metrics_pod_scheduled(r->metrics->scheduler, ms_api_reporter_failed_attempts(r->reporter, o->pod) + 1);
        r->st.binds_ok++;
        ms_api_reporter_bound(r->reporter, o->pod, o->node);
    } else if (o->conflict) {
        bind_conflict(r, o);
        return;
    } else if (o->gone) {
        r->st.binds_gone++;
    } else {
        r->st.binds_failed++;
    }
    ms_scheduler_bind_done(r->sched, o->pod, o->ok, o->gone, o->ok ? NULL : o->message, ms_clock_wall());
}

void ms_scheduler_loop_drain_binds(ms_scheduler_loop *r) { ms_api_binder_drain(r->binder, bind_done, r); }

/* A PV or claim write of VolumeBinding's PreBind failed: the binding
 * cycle fails with the API server's message (upstream's BindPodVolumes
 * returns the update's error). */
static void volume_write_failed(void *ctx, const ms_pod *pod, const char *message) {
    ms_scheduler_loop *r = ctx;
    ms_scheduler_volume_write_failed(r->sched, pod, message, ms_clock_wall());
}

static void drain_volume_writes(ms_scheduler_loop *r) {
    ms_api_volume_binder_drain(r->volume_binder, volume_write_failed, r);
}

static void claim_write_failed(void *ctx, const ms_pod *pod, const char *message) {
    ms_scheduler_loop *r = ctx;
    ms_scheduler_claim_write_failed(r->sched, pod, message, ms_clock_wall());
}

void ms_scheduler_loop_callbacks(ms_scheduler_loop *r, ms_scheduler_options *so) {
    so->binder = (ms_binder){r, run_bind};
    so->evictor = (ms_evictor){r, run_evict, run_set_nomination};
    so->reporter = (ms_reporter){.ctx = r, .unschedulable = on_unschedulable, .bind_failed = on_bind_failed,
                                 .preempted = on_preempted, .error = on_cycle_error, .post_filter = on_post_filter,
                                 .gated = on_gated, .binding_error = on_binding_error};
}

/* ---- informers (scheduler thread) -------------------------------------- */

/* Scheduling waits for every informer's first LIST, as upstream waits
 * for its caches: a pod placed before the namespaces or PDBs are known
 * could break an affinity term or a budget. */
static bool all_synced(const ms_scheduler_loop *r) {
    for (uint32_t k = 0; k < MS_KIND_COUNT; k++)
        if (k != MS_KIND_OTHER && !r->synced[k]) return false;
    return true;
}

static void log_synced(ms_scheduler_loop *r, uint8_t kind) {
    static const char *const names[] = {"pods", "nodes", "objects", "namespaces", "poddisruptionbudgets",
                                        "persistentvolumes", "persistentvolumeclaims", "storageclasses",
                                        "csinodes", "csidrivers", "csistoragecapacities", "deviceclasses",
                                        "resourceslices", "resourceclaims", "resourceclaimtemplates", "services",
                                        "replicationcontrollers", "replicasets", "statefulsets"};
    const char *res = kind < sizeof names / sizeof names[0] ? names[kind] : "objects";
    if (kind == MS_KIND_PDB && r->pdb_inf) {
        /* which API version the server answered for (decided at the first LIST) */
        const char *path = ms_informer_path(r->pdb_inf);
        const char *version = strstr(path, "/v1beta1/") ? "policy/v1beta1" : "policy/v1";
        char count[16];
        snprintf(count, sizeof count, "%u", ms_scheduler_pdb_count(r->sched));
        ms_log(r->log, MS_LOG_INFO, "informer synced", "resource", res, "version", version, "objects", count,
               NULL);
        return;
    }
    ms_log(r->log, MS_LOG_INFO, "informer synced", "resource", res, NULL);
}

/* The debug lines of the objects the scheduler keeps apart from pods and
 * nodes: a namespace's labels, the PDB count, a storage object's version. */
static void log_delta(ms_scheduler_loop *r, const ms_delta *d) {
    if (!ms_log_enabled(r->log, MS_LOG_DEBUG)) return;
    const char *event = ms_delta_type_name((ms_delta_type)d->type);
    if (d->kind == MS_KIND_NAMESPACE) {
        char nlabels[16];
        snprintf(nlabels, sizeof nlabels, "%u", d->ns->meta.labels.n);
        ms_log(r->log, MS_LOG_DEBUG, "namespace", "event", event, "name", ms_str_get(r->in, d->ns->meta.name),
               "labels", nlabels, NULL);
    } else if (d->kind >= MS_KIND_PV && d->kind <= MS_KIND_CSI_CAPACITY) {
        const ms_storage_object *o = d->storage;
        ms_log(r->log, MS_LOG_DEBUG, "storage", "event", event, "kind",
               ms_object_kind_name((ms_object_kind)d->kind), "namespace",
               o->meta.namespace_ == MS_STR_NONE ? "" : ms_str_get(r->in, o->meta.namespace_), "name",
               ms_str_get(r->in, o->meta.name), "resourceVersion", o->meta.resource_version, NULL);
    } else if (d->kind == MS_KIND_PDB) {
        char count[16];
        snprintf(count, sizeof count, "%u", ms_scheduler_pdb_count(r->sched));
        ms_log(r->log, MS_LOG_DEBUG, "pdb", "event", event, "namespace",
               ms_str_get(r->in, d->pdb->meta.namespace_), "name", ms_str_get(r->in, d->pdb->meta.name), "pdbs",
               count, NULL);
    }
}

/* The scheduler's DRA plugin sees the store once the server is known to
 * serve resource.k8s.io: the claims' first list answered, or any object
 * came (ms_scheduler_apply). A 404 leaves the plugin without it, refusing
 * pods with claims, which such a server does not keep. */
static void dra_synced(ms_scheduler_loop *r, const ms_delta *d) {
    ms_dra_kind kind = (ms_dra_kind)(d->kind - MS_KIND_DEVICE_CLASS);
    ms_informer_stats st = {0};
    if (kind == MS_DK_RESOURCE_CLAIM) ms_informer_stats_get(r->dra_inf[kind], &st);
    if (st.lists > 0) ms_scheduler_dra_provided(r->sched);
}

static void apply_delta(ms_scheduler_loop *r, ms_delta *d, double now) {
    ms_taint_eviction_observe(r->taint_eviction, d);
    if (d->type == MS_DELTA_SYNCED) {
        if (d->kind >= MS_KIND_DEVICE_CLASS && d->kind <= MS_KIND_RESOURCE_CLAIM_TEMPLATE) dra_synced(r, d);
        if (d->kind < sizeof r->synced / sizeof r->synced[0]) r->synced[d->kind] = true;
        log_synced(r, d->kind);
        return;
    }
    if (ms_scheduler_apply(r->sched, d, now) != MS_OK)
        ms_log(r->log, MS_LOG_ERROR, "out of memory keeping a resource.k8s.io object", NULL);
    if (d->kind == MS_KIND_POD && d->type == MS_DELTA_DELETE) ms_api_reporter_forget(r->reporter, d->pod);
    log_delta(r, d);
}

static size_t drain_deltas(ms_scheduler_loop *r) {
    ms_delta batch[256];
    size_t total = 0, n;
    while ((n = ms_delta_queue_pop(r->deltas, batch, 256, 0)) > 0) {
        double now = ms_clock_wall();
        for (size_t i = 0; i < n; i++) {
            apply_delta(r, &batch[i], now);
            ms_delta_release(&batch[i]);
        }
        total += n;
        if (n < 256) break;
    }
    return total;
}

/* ---- Lua policies ------------------------------------------------------ */

static void policy_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    ms_scheduler_loop *r = ctx;
    ms_log_level l = level == MS_LUA_LOG_ERROR ? MS_LOG_ERROR
                     : level == MS_LUA_LOG_WARN ? MS_LOG_WARN
                                                : MS_LOG_INFO;
    ms_log(r->log, l, msg, "policy", policy, NULL);
}

/* Reloads, refused versions and disabled policies: a log line and an
 * Event about the scheduler itself (its Pod, or the leader-election lock).
 * They come at the pace of file writes, so there is no per-policy
 * aggregation; the global event budget applies. */
static void policy_report(void *ctx, const ms_policy_event *ev) {
    ms_scheduler_loop *r = ctx;
    static const char *const kinds[] = {"reloaded", "reload refused", "disabled", "load failed"};
    static const struct {
        const char *type, *reason, *action;
    } events[] = {
        {"Normal", "PolicyReloaded", "Reload"},
        {"Warning", "PolicyReloadFailed", "Reload"},
        {"Warning", "PolicyDisabled", "Disable"},
        {"Warning", "PolicyLoadFailed", "Load"},
    };
    unsigned k = ev->kind <= MS_POLICY_LOAD_FAILED ? (unsigned)ev->kind : 0;
    char latency[32];
    snprintf(latency, sizeof latency, "%.3f", ev->latency);
    ms_log(r->log, ev->kind == MS_POLICY_RELOADED ? MS_LOG_INFO : MS_LOG_ERROR, kinds[k], "profile",
           ev->profile, "plugin", ev->plugin, "file", ev->file, "message", ev->message,
           ev->kind == MS_POLICY_RELOADED ? "latency" : NULL, latency, NULL);
    if (!r->self.name[0] || !r->reporter) return;
    char note[1024];
    snprintf(note, sizeof note, "%s (profile %s, file %s): %s", ev->plugin ? ev->plugin : "",
             ev->profile ? ev->profile : "", ev->file ? ev->file : "", ev->message ? ev->message : "");
    ms_object_ref self = {r->self.api_version, r->self.kind, r->self.ns, r->self.name, r->self.uid};
    ms_api_reporter_event(r->reporter, ev->profile, &self, events[k].type, events[k].reason, events[k].action, note);
}

/* On the watcher thread: wake the loop. */
static void policy_ready(void *ctx) {
    ms_scheduler_loop *r = ctx;
    ms_mailbox_wake(&r->policy_wake);
}

void ms_scheduler_loop_policy_hooks(ms_scheduler_loop *r, ms_policy_set_options *po) {
    po->lua.log = policy_log;
    po->lua.log_ctx = r;
    po->report = policy_report;
    po->report_ctx = r;
    po->ready = policy_ready;
    po->ready_ctx = r;
}

/* ---- serving (connection threads) --------------------------------------- */

/* The plain port: no authentication, so health only unless
 * --plain-metrics; /debug is the secure port's alone. */
void ms_scheduler_loop_serve_plain(void *ctx, const char *path, ms_http_answer *out) {
    const ms_scheduler_loop *r = ctx;
    if (r->o->plain_metrics || strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0 ||
        strcmp(path, "/readyz") == 0) {
        ms_endpoints_serve(r->endpoints, path, out);
        return;
    }
    out->status = 404;
    out->body = strdup("404 page not found\n");
}

/* How long a connection waits for the scheduler thread to answer: a
 * scheduling batch is 10 ms, a cycle on a large cluster a few more. */
#define DEBUG_ANSWER_TIMEOUT 10.0

/* On a connection thread: /debug/... through the scheduler thread, the
 * rest (metrics, health) from the metrics, which are thread-safe. Only
 * the secure port serves /debug: it authorizes every request. */
void ms_scheduler_loop_serve_secure(void *ctx, const char *path, ms_http_answer *out) {
    ms_scheduler_loop *r = ctx;
    if (strcmp(path, "/debug/explain") == 0) {
        char pod[600];
        if (!ms_http_query_get(out->query, "pod", pod, sizeof pod) || !strchr(pod, '/')) {
            out->status = 400;
            out->body = strdup("expected ?pod=NAMESPACE/NAME\n");
            return;
        }
        ms_debug_requests_ask(r->debug, MS_DEBUG_EXPLAIN, pod, DEBUG_ANSWER_TIMEOUT, out);
        return;
    }
    if (strcmp(path, "/debug/snapshot") == 0) {
        ms_debug_requests_ask(r->debug, MS_DEBUG_SNAPSHOT, "", DEBUG_ANSWER_TIMEOUT, out);
        return;
    }
    if (strcmp(path, "/debug/shadow") == 0) {
        ms_debug_requests_ask(r->debug, MS_DEBUG_SHADOW, "", DEBUG_ANSWER_TIMEOUT, out);
        return;
    }
    ms_endpoints_serve(r->endpoints, path, out);
}

/* On the connection's thread: the view the scheduler thread took, written
 * out (or, out NULL, only released). */
static void write_snapshot(void *ctx, ms_http_answer *out) {
    ms_cluster_view *v = ctx;
    if (out) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ms_error err = {0};
        ms_rc rc = f ? ms_snapshot_write_view(v, f, &err) : ms_error_set(&err, MS_ENOMEM, "out of memory");
        if (f) fclose(f);
        free(out->body);
        out->body = rc == MS_OK ? text : strdup(err.msg);
        out->len = rc == MS_OK ? len : 0;
        if (rc != MS_OK) free(text);
        out->status = rc == MS_OK ? 200 : 500;
        out->content_type = rc == MS_OK ? "application/json" : "text/plain; charset=utf-8";
    }
    ms_cluster_view_free(v);
    free(v);
}

/* On the scheduler thread: references to what it holds; the writing is
 * the connection thread's. */
static void answer_snapshot(ms_scheduler_loop *r, ms_http_answer *out, ms_debug_later *later) {
    if (!r->o->debug_snapshot) {
        out->status = 404;
        out->body = strdup("/debug/snapshot needs the scheduler started with --debug-snapshot\n");
        return;
    }
    ms_cluster_view *v = malloc(sizeof *v);
    if (!v || ms_scheduler_view(r->sched, v) != MS_OK) {
        free(v);
        out->status = 500;
        out->body = strdup("out of memory\n");
        return;
    }
    *later = (ms_debug_later){write_snapshot, v};
}

/* On the scheduler thread, between cycles. */
static void debug_answer(void *ctx, ms_debug_kind kind, const char *arg, ms_http_answer *out,
                         ms_debug_later *later) {
    ms_scheduler_loop *r = ctx;
    if (kind == MS_DEBUG_SNAPSHOT) {
        answer_snapshot(r, out, later);
        return;
    }
    if (kind == MS_DEBUG_SHADOW) {
        /* the counts and the bounded log: small, written here */
        cJSON *sh = ms_scheduler_shadow_json(r->sched);
        out->body = sh ? cJSON_Print(sh) : NULL;
        cJSON_Delete(sh);
        out->status = out->body ? 200 : 500;
        out->content_type = "application/json";
        return;
    }
    char ns[256];
    const char *slash = strchr(arg, '/');
    snprintf(ns, sizeof ns, "%.*s", (int)(slash - arg), arg);
    cJSON *e = NULL;
    ms_error err = {0};
    ms_rc rc = ms_scheduler_explain(r->sched, ns, slash + 1, ms_clock_wall(), &e, &err);
    if (rc != MS_OK) {
        out->status = rc == MS_ENOENT ? 404 : 500;
        out->body = strdup(err.msg);
        return;
    }
    ms_explain_add_policies(e, r->policies);
    out->body = cJSON_Print(e);
    cJSON_Delete(e);
    out->status = out->body ? 200 : 500;
    out->content_type = "application/json";
}


bool ms_scheduler_loop_leading(const ms_scheduler_loop *r) { return !r->elector || ms_leader_elector_leading(r->elector); }

static void log_progress(ms_scheduler_loop *r, const char *msg) {
    char a[24], b[24], c[24], d[24], e[24], f[24];
    ms_run_stats st = ms_scheduler_loop_stats(r);
    snprintf(a, sizeof a, "%llu", (unsigned long long)st.binds_ok);
    snprintf(b, sizeof b, "%llu", (unsigned long long)(st.binds_failed + st.binds_gone));
    snprintf(c, sizeof c, "%llu", (unsigned long long)st.unschedulable);
    ms_queue *q = ms_scheduler_queue(r->sched);
    snprintf(d, sizeof d, "%u", ms_queue_len_active(q) + ms_queue_len_backoff(q));
    snprintf(e, sizeof e, "%u", ms_queue_len_unschedulable(q));
    snprintf(f, sizeof f, "%llu", (unsigned long long)st.events_posted);
    ms_log(r->log, MS_LOG_INFO, msg, "bound", a, "bind_failures", b, "unschedulable_reports", c,
           "pending", d, "unschedulable_pods", e, "events", f, NULL);
}

/* e.g. a role without list/watch on namespaces (1.20's
 * system:kube-scheduler): the informer logs the 403s */
static void log_unsynced(ms_scheduler_loop *r) {
    const bool *s = r->synced;
    char waiting[256] = "";
    size_t n = 0;
    for (uint32_t k = 0; k < MS_KIND_COUNT; k++)
        if (k != MS_KIND_OTHER && !s[k] && n < sizeof waiting)
            n += (size_t)snprintf(waiting + n, sizeof waiting - n, "%s%s", n ? "," : "",
                                  ms_object_kind_name((ms_object_kind)k));
    ms_log(r->log, MS_LOG_WARN, "waiting for informers to sync; not scheduling yet", "waiting", waiting, NULL);
}

/* ---- the loop ------------------------------------------------------------ */

typedef struct loop {
    int sfd;                       /* signalfd; -1: signals not handled */
    double tick, next_tick, next_progress;
    uint64_t lists;                /* LISTs the informers completed, as last seen */
    double give_back_at;           /* 0: nothing to give back */
    bool stopping, more;
    bool debug;                    /* SIGUSR2 came: dump and compare the cache */
    double stop_deadline;
    uint64_t last_bound;
} loop;

static void drain_fd(int fd) {
    uint64_t v;
    if (read(fd, &v, sizeof v) < 0) { /* nothing pending */ }
}

/* A LIST's burst (its pages' JSON, the objects it replaced) is freed
 * between objects that stay, and glibc gives back only the top of a heap:
 * each relist, after every API server restart, left the process a few
 * hundred KiB bigger (docs/reliability.md, "Restarts of the API server").
 * A second after the informers' last LIST, when its deltas are applied,
 * the free pages go back: a few milliseconds, once per relist. */
static void give_back_after_lists(ms_scheduler_loop *r, loop *l, double now) {
    ms_informer *all[4 + MS_SK_COUNT] = {r->pod_inf, r->node_inf, r->ns_inf, r->pdb_inf};
    for (int k = 0; k < MS_SK_COUNT; k++) all[4 + k] = r->storage_inf[k];
    uint64_t lists = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (!all[i]) continue;
        ms_informer_stats st;
        ms_informer_stats_get(all[i], &st);
        lists += st.lists;
    }
    if (lists != l->lists) {
        l->lists = lists;
        l->give_back_at = now + 1;
    } else if (l->give_back_at && now >= l->give_back_at) {
        l->give_back_at = 0;
#ifdef __GLIBC__
        malloc_trim(0);
#endif
    }
}

/* Waits for deltas, answered binds, a signal, a policy reload or a
 * leadership change, or the next tick (not at all while there is more to
 * schedule), and takes in what came. */
static ms_rc wait_and_read(ms_scheduler_loop *r, loop *l, ms_error *err) {
    /* poll() skips entries whose fd is negative. */
    struct pollfd fds[9] = {
        {.fd = ms_delta_queue_fd(r->deltas), .events = POLLIN},
        {.fd = ms_api_binder_fd(r->binder), .events = POLLIN},
        {.fd = l->sfd, .events = POLLIN},
        {.fd = ms_mailbox_fd(&r->policy_wake), .events = POLLIN},
        {.fd = r->elector ? ms_leader_elector_fd(r->elector) : -1, .events = POLLIN},
        {.fd = ms_debug_requests_fd(r->debug), .events = POLLIN},
        {.fd = ms_api_volume_binder_fd(r->volume_binder), .events = POLLIN},
        {.fd = ms_api_claim_writer_fd(r->claim_writer), .events = POLLIN},
        {.fd = r->poster ? ms_poster_fd(r->poster) : -1, .events = POLLIN},
    };
    int timeout_ms = l->more ? 0 : (int)((l->next_tick - ms_clock_monotonic()) * 1000) + 1;
    if (timeout_ms < 0) timeout_ms = 0;
    if (poll(fds, sizeof fds / sizeof fds[0], timeout_ms) < 0 && errno != EINTR)
        return ms_error_set(err, MS_EIO, "poll: %s", strerror(errno));
    if (l->sfd >= 0 && (fds[2].revents & POLLIN)) {
        struct signalfd_siginfo si;
        ssize_t got = read(l->sfd, &si, sizeof si);
        if (got > 0 && si.ssi_signo == SIGUSR2) {
            l->debug = true;
        } else if (got > 0 && !l->stopping) {
            l->stopping = true;
            double grace = r->o->shutdown_timeout > 0 ? r->o->shutdown_timeout : 10;
            l->stop_deadline = ms_clock_monotonic() + grace;
            ms_log(r->log, MS_LOG_INFO, "stopping: finishing binds in flight", "signal",
                   strsignal((int)si.ssi_signo), NULL);
        }
    }
    if (fds[1].revents & POLLIN) ms_scheduler_loop_drain_binds(r);
    if (fds[3].revents & POLLIN) ms_mailbox_drain(&r->policy_wake);
    if (fds[4].revents & POLLIN) drain_fd(fds[4].fd);
    if ((fds[5].revents & POLLIN) && r->sched) ms_debug_requests_serve(r->debug, debug_answer, r);
    if (fds[6].revents & POLLIN) drain_volume_writes(r);
    if (fds[7].revents & POLLIN) ms_api_claim_writer_drain(r->claim_writer, claim_write_failed, r);
    if (fds[8].revents & POLLIN) ms_poster_take_failed_victims(r->poster, victim_not_deleted, r);
    return MS_OK;
}

/* SIGUSR2, as upstream's kube-scheduler: the cache and the queue dumped
 * here, on the thread that owns them, and a view of both handed to the
 * comparer's thread, which compares it with a fresh LIST. */
static void debug_cache(ms_scheduler_loop *r) {
    ms_cache *c = ms_scheduler_cache(r->sched);
    ms_queue *q = ms_scheduler_queue(r->sched);
    ms_cache_dump(r->log, r->in, c, q);
    if (!r->debugger) {
        ms_str names[64];
        uint32_t n = r->cfg.nprofiles < 64 ? r->cfg.nprofiles : 64;
        for (uint32_t i = 0; i < n; i++) names[i] = ms_intern_cstr(r->in, r->cfg.profiles[i].scheduler_name);
        ms_cache_debugger_options o = {.client = r->client, .decoder = ms_scheduler_decoder(r->sched),
                                       .in = r->in, .log = r->log, .scheduler_names = names,
                                       .nscheduler_names = n};
        ms_error err = {0};
        if (ms_cache_debugger_start(&o, &r->debugger, &err) != MS_OK) {
            ms_log(r->log, MS_LOG_WARN, "cache comparer not started", "error", err.msg, NULL);
            return;
        }
    }
    ms_cache_view v = {0};
    if (ms_cache_view_of_cache(&v, c) != 0 || ms_cache_view_of_queue(&v, q, c) != 0) {
        ms_log(r->log, MS_LOG_WARN, "cache comparer: out of memory", NULL);
        ms_cache_view_free(&v);
        return;
    }
    ms_cache_debugger_compare(r->debugger, &v);
}

/* A bounded batch, then back to the deltas and completions. */
static void schedule_batch(ms_scheduler_loop *r, loop *l) {
    double until = ms_clock_monotonic() + 0.01;
    for (int i = 0; i < 256 && ms_api_binder_in_flight(r->binder) < r->max_binds; i++) {
        if (!schedule_one_measured(r)) break;
        l->more = true;
        if ((i & 15) == 15 && ms_clock_monotonic() >= until) break;
    }
}

/* One round of the loop; false when it is over (rc says why). */
static bool run_once(ms_scheduler_loop *r, loop *l, ms_rc *rc, ms_error *err) {
    if ((*rc = wait_and_read(r, l, err)) != MS_OK) return false;
    if (r->elector && ms_leader_elector_lost(r->elector)) {
        /* upstream's kube-scheduler exits here; another replica may
         * already be binding, so no new binds start */
        *rc = ms_error_set(err, MS_ESTATE, "leaderelection lost");
        return false;
    }
    drain_deltas(r);
    if (l->debug) {
        l->debug = false;
        debug_cache(r);
    }
    /* Between cycles: a reloaded policy is swapped in here. */
    if (r->policies) ms_policy_set_poll(r->policies, ms_clock_wall());
    double now = ms_clock_monotonic();
    ms_endpoints_heartbeat(r->endpoints, now);
    if (now >= l->next_tick) {
        ms_scheduler_tick(r->sched, ms_clock_wall());
        metrics_snapshot(r);
        give_back_after_lists(r, l, now);
        l->next_tick = now + l->tick;
    }
    l->more = false;
    if (l->stopping) return ms_api_binder_in_flight(r->binder) > 0 && now < l->stop_deadline;
    if (all_synced(r) && ms_scheduler_loop_leading(r)) schedule_batch(r, l);
    if (now >= l->next_progress) {
        if (!all_synced(r)) log_unsynced(r);
        if (r->st.binds_ok != l->last_bound) log_progress(r, "progress");
        l->last_bound = r->st.binds_ok;
        l->next_progress = now + 10;
    }
    return true;
}

ms_rc ms_scheduler_loop_run(ms_scheduler_loop *r, int sfd, ms_error *err) {
    const ms_run_options *o = r->o;
    loop l = {.sfd = sfd};
    l.tick = o->tick_interval > 0 ? o->tick_interval : 0.2;
    l.next_tick = ms_clock_monotonic() + l.tick;
    l.next_progress = ms_clock_monotonic() + 10;
    ms_rc rc = MS_OK;
    while (run_once(r, &l, &rc, err)) {}
    if (rc == MS_OK) {
        if (ms_api_binder_in_flight(r->binder))
            ms_log(r->log, MS_LOG_WARN, "binds still in flight at shutdown are abandoned", NULL);
        log_progress(r, "stopped");
    }
    return rc;
}
