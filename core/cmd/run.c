/* `moonsched run`: informers -> delta queue -> scheduler thread -> binder
 * (run/api_binder.h: binds multiplexed over a shared connection) and
 * reports (run/api_reporter.h, through the poster thread of
 * run/poster.h). This file sets them up and runs the scheduler thread's
 * loop. See include/moonsched/run.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/mailbox.h"
#include "client/delta_queue.h"
#include "client/event_recorder.h"
#include "api/storage.h"
#include "backend/queue.h"
#include "base/map.h"
#include "base/rate_limiter.h"
#include "client/http_endpoint.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "client/leader_election.h"
#include "run/api_binder.h"
#include "run/api_claim_writer.h"
#include "run/api_reporter.h"
#include "run/api_volume_binder.h"
#include "run/cache_debugger.h"
#include "cmd/config_check.h"
#include "serving/debug_requests.h"
#include "simulate/explain_text.h"
#include "cmd/snapshot.h"
#include "serving/http_server.h"
#include "serving/metrics.h"
#include "run/poster.h"
#include "serving/secure_serving.h"
#include "scheduler/dra_events.h"
#include "scheduler/apply.h"
#include "scheduler/storage_events.h"
#include "controllers/taint_eviction_controller.h"
#include "scheduler/scheduler_metrics.h"
#include "moonsched/config.h"
#include "moonsched/policy_set.h"
#include "moonsched/run.h"
#include "moonsched/scheduler.h"
#include "scheduler/cluster_view.h"
#include "scheduler/explain.h"
#include "scheduler/shadow.h"

void ms_run_options_default(ms_run_options *o) {
    memset(o, 0, sizeof *o);
    o->handle_signals = true;
    o->secure_port = MS_RUN_DEFAULT_SECURE_PORT;
    o->bind_address = MS_RUN_DEFAULT_BIND_ADDRESS;
}

/* Binds on the wire at once (HTTP/2 streams), by default; the scheduler
 * stops popping pods while twice that many wait for their outcome: each
 * holds its cycle record and the pod, and scheduling far ahead of the API
 * server gains nothing. */
enum { DEFAULT_BINDS_IN_FLIGHT = 64, MAX_BINDS_IN_FLIGHT = 1024 };

typedef struct runner {
    const ms_run_options *o;
    const ms_logger *log;
    ms_interner *in;
    ms_config cfg;
    ms_scheduler *sched;
    ms_kube_client *client, *poster_client;
    ms_delta_queue *deltas;
    ms_informer *pod_inf, *node_inf, *ns_inf, *pdb_inf;
    ms_informer *storage_inf[MS_SK_COUNT];   /* PVs, PVCs, ... in ms_storage_kind order */
    ms_informer *dra_inf[MS_DK_COUNT];       /* DeviceClasses, ... in ms_dra_kind order */
    bool synced[MS_KIND_COUNT];    /* per ms_object_kind: first LIST delivered */

    ms_api_binder *binder;
    ms_api_volume_binder *volume_binder;   /* VolumeBinding's PreBind writes */
    ms_volume_binder volume_binder_ops;
    ms_api_claim_writer *claim_writer;     /* DynamicResources' PreBind writes */
    ms_claim_writer claim_writer_ops;
    ms_http_endpoint *extender_http;       /* the extenders' calls */
    ms_http_caller extender_caller;
    uint32_t max_binds;            /* binds awaiting an outcome before popping stops */
    ms_event_recorder *events;
    ms_poster *poster;
    ms_api_reporter *reporter;
    ms_run_stats st;               /* the scheduler thread's figures; the poster keeps its own */

    ms_policy_set *policies;       /* Lua policies; NULL without any */
    ms_mailbox policy_wake;        /* a reload waits for ms_policy_set_poll */

    /* What Events about the scheduler itself (policies) regard: its Pod,
     * or the leader-election lock object. */
    struct {
        char api_version[32], kind[32], ns[256], name[256], uid[64];
    } self;

    ms_kubeconfig kc;              /* kept for the leader elector's client */
    ms_exec_credential *credentials;   /* kc's credential plugin, shared by every client */
    ms_leader_elector *elector;    /* NULL: election off, always leading */
    ms_kube_client *te_client;     /* the taint eviction controller's, with its own rate limit */
    ms_taint_eviction *taint_eviction;   /* NULL: not enabled */
    bool disruption_conditions;    /* the server keeps them (1.26+, or unknown) */

    ms_cache_debugger *debugger;   /* started at the first SIGUSR2 */
    ms_metrics *metrics;           /* thread-safe; the HTTP thread reads it */
    ms_debug_requests *debug;      /* /debug/... asked of this thread by the HTTPS threads */
    ms_http_server *http;
    ms_secure_serving *https;
    ms_policy_info *policy_info;   /* scratch for the policies' figures */
    ms_metrics_policy *policy_snap;
    /* The attempt in progress (schedule_one), for its metrics. */
    bool in_cycle, cycle_error;
    int cycle_result;              /* ms_attempt_result, or -1: no outcome yet */
    uint32_t cycle_profile, cycle_victims;
    double cycle_start;
    double next_sched_metrics;     /* monotonic: when the scheduler's families are rendered next */
} runner;

/* Every figure: the scheduler thread's, the poster's and the reporter's. */
static ms_run_stats run_stats(const runner *r) {
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

static uint32_t profile_of_pod(runner *r, const ms_pod *pod) {
    int32_t i = ms_scheduler_profile_index(r->sched, pod->scheduler_name);
    return i < 0 ? 0 : (uint32_t)i;
}

/* An attempt that ended without a bind: inside schedule_one its duration
 * is known when the call returns (schedule_one_measured); outside (a
 * Permit wait rejected later) only the count is kept. */
static void attempt_failed(runner *r, const ms_pod *pod) {
    ms_attempt_result res = r->cycle_error ? MS_ATTEMPT_ERROR : MS_ATTEMPT_UNSCHEDULABLE;
    r->cycle_error = false;
    if (r->in_cycle) {
        r->cycle_result = (int)res;
        r->cycle_profile = profile_of_pod(r, pod);
    } else {
        ms_metrics_attempt(r->metrics, profile_of_pod(r, pod), res, -1);
    }
}

static bool schedule_one_measured(runner *r) {
    r->in_cycle = true;
    r->cycle_error = false;
    r->cycle_result = -1;
    r->cycle_victims = 0;
    r->cycle_start = ms_clock_monotonic();
    bool popped = ms_scheduler_schedule_one(r->sched, ms_clock_wall());
    r->in_cycle = false;
    if (r->cycle_result == MS_ATTEMPT_UNSCHEDULABLE || r->cycle_result == MS_ATTEMPT_ERROR)
        ms_metrics_attempt(r->metrics, r->cycle_profile, (ms_attempt_result)r->cycle_result,
                           ms_clock_monotonic() - r->cycle_start);
    return popped;
}

static bool all_synced(const runner *r);

/* moonsched_shadow_decisions_total and _skipped_total from the scheduler's counts. */
static void shadow_metrics(runner *r) {
    uint32_t n = ms_scheduler_shadow_count(r->sched);
    if (n == 0) return;
    ms_metrics_shadow *v = calloc(n, sizeof *v);
    if (!v) return;
    for (uint32_t i = 0; i < n; i++) {
        const ms_shadow *sh = ms_scheduler_shadow_at(r->sched, i);
        v[i] = (ms_metrics_shadow){ms_scheduler_profile_name(r->sched, sh->profile), sh->plugin, sh->agree,
                                   sh->disagree, sh->skipped};
    }
    ms_metrics_set_shadows(r->metrics, v, n);
    free(v);
}

/* The figures that are states rather than events, at cycle boundaries. */
static void metrics_snapshot(runner *r) {
    ms_queue *q = ms_scheduler_queue(r->sched);
    ms_metrics_set_pending(r->metrics, ms_queue_len_active(q), ms_queue_len_backoff(q),
                           ms_queue_len_unschedulable(q), ms_queue_len_gated(q));
    ms_run_stats st = run_stats(r);
    ms_metrics_events(r->metrics, st.events_posted, st.events_failed, st.events_suppressed);
    ms_metrics_set_binds_in_flight(r->metrics, ms_api_binder_in_flight(r->binder));
    double now = ms_clock_monotonic();
    if (now >= r->next_sched_metrics) {
        /* The scheduler's own families: rendered here, where they are
         * owned, about once a second (a scrape may see them that old). */
        ms_buf b = {0};
        ms_scheduler_render_metrics(r->sched, &b);
        size_t len = b.len;
        ms_metrics_set_scheduler_text(r->metrics, ms_buf_take(&b), len);
        r->next_sched_metrics = now + 1;
    }
    /* ready: scheduling has started, every informer's first LIST is in */
    ms_metrics_set_ready(r->metrics, all_synced(r));
    uint32_t n = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (n && r->policy_snap) {
        const ms_policy_info *closed = NULL;   /* a profile that places no pod */
        for (uint32_t i = 0; i < n; i++) {
            ms_policy_info *info = &r->policy_info[i];
            ms_policy_set_info(r->policies, i, info);
            r->policy_snap[i] = (ms_metrics_policy){info->profile, info->plugin, &info->stats, info->disabled};
            if (info->load_error && !info->fail_open && !closed) closed = info;
        }
        ms_metrics_set_policies(r->metrics, r->policy_snap, n);
        char why[768] = "";
        if (closed)
            snprintf(why, sizeof why, "profile %s places no pod: policy %.500s (from %s)", closed->profile,
                     closed->load_error, closed->file);
        ms_metrics_set_unready_reason(r->metrics, why);
    }
    shadow_metrics(r);
}

/* ---- binder, evictor and reporter callbacks (scheduler thread) ---------- */

static ms_rc run_bind(void *ctx, const ms_pod *pod, ms_str node) {
    runner *r = ctx;
    double start = r->in_cycle ? r->cycle_start : ms_clock_monotonic();
    return ms_api_binder_bind(r->binder, pod, ms_str_get(r->in, node), start, profile_of_pod(r, pod));
}

static ms_rc run_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    runner *r = ctx;
    (void)node;
    ms_api_reporter_evict(r->reporter, victim, preemptor);
    return MS_OK;
}

static void run_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    runner *r = ctx;
    ms_api_reporter_nominate(r->reporter, pod, node == MS_STR_NONE ? NULL : ms_str_get(r->in, node));
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    runner *r = ctx;
    (void)attempts;
    r->st.unschedulable++;
    bool error = r->cycle_error;   /* attempt_failed consumes it */
    attempt_failed(r, pod);
    ms_api_reporter_unschedulable(r->reporter, pod, error, message);
}

static void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *message) {
    runner *r = ctx;
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
    runner *r = ctx;
    ms_api_reporter_binding_error(r->reporter, pod, message);
}

/* Held back by PreEnqueue: not an attempt. Gates get their condition; a
 * policy's refusal is only logged (upstream reports neither). */
static void on_gated(void *ctx, const ms_pod *pod, const char *plugin, const char *reason) {
    runner *r = ctx;
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
    runner *r = ctx;
    r->cycle_victims++;
    ms_api_reporter_preempted(r->reporter, victim, preemptor, ms_str_get(r->in, node));
}

static void on_cycle_error(void *ctx, const ms_pod *pod, const char *message) {
    runner *r = ctx;
    (void)pod;
    (void)message;
    r->cycle_error = true;
}

static void on_post_filter(void *ctx, const ms_pod *pod, ms_str nominated) {
    runner *r = ctx;
    (void)pod;
    ms_metrics_preemption(r->metrics, nominated != MS_STR_NONE ? r->cycle_victims : 0);
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
static void bind_conflict(runner *r, const ms_bind_outcome *o) {
    ms_metrics_bind_conflict(r->metrics, o->why);
    if (o->why == MS_BIND_CONFLICT_OTHER || o->why == MS_BIND_CONFLICT_GATED) r->st.binds_failed++;
    else r->st.binds_gone++;
    char key[512];
    ms_pod_key(o->pod, r->in, key, sizeof key);
    ms_log(r->log, o->why == MS_BIND_CONFLICT_OTHER ? MS_LOG_WARN : MS_LOG_INFO, "binding conflict", "pod", key,
           "node", o->node, "reason", ms_metrics_conflict_name(o->why), "meaning", conflict_meaning[o->why],
           "error", o->message, NULL);
    ms_scheduler_bind_conflict(r->sched, o->pod, o->why, o->message, ms_clock_wall());
}

/* A bind answered. Upstream counts a scheduled attempt once its binding
 * succeeded, and a failed binding as an error. */
static void bind_done(void *ctx, const ms_bind_outcome *o) {
    runner *r = ctx;
    double took = ms_clock_monotonic() - o->attempt_start;
    ms_metrics_binding(r->metrics, o->ok         ? MS_BIND_OK
                                   : o->conflict ? MS_BIND_CONFLICT
                                   : o->gone     ? MS_BIND_GONE
                                                 : MS_BIND_FAILED);
    ms_metrics_attempt(r->metrics, o->profile, o->ok ? MS_ATTEMPT_SCHEDULED : MS_ATTEMPT_ERROR, took);
    if (o->ok) {
        /* Failed attempts before this one, as the unschedulable reports
         * counted them (the report is forgotten once bound). */
        ms_metrics_pod_scheduled(r->metrics, ms_api_reporter_failed_attempts(r->reporter, o->pod) + 1);
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

static void drain_completions(runner *r) { ms_api_binder_drain(r->binder, bind_done, r); }

/* A PV or claim write of VolumeBinding's PreBind failed: the binding
 * cycle fails with the API server's message (upstream's BindPodVolumes
 * returns the update's error). */
static void volume_write_failed(void *ctx, const ms_pod *pod, const char *message) {
    runner *r = ctx;
    ms_scheduler_volume_write_failed(r->sched, pod, message, ms_clock_wall());
}

static void drain_volume_writes(runner *r) {
    ms_api_volume_binder_drain(r->volume_binder, volume_write_failed, r);
}

static void claim_write_failed(void *ctx, const ms_pod *pod, const char *message) {
    runner *r = ctx;
    ms_scheduler_claim_write_failed(r->sched, pod, message, ms_clock_wall());
}

/* ---- informers (scheduler thread) -------------------------------------- */

/* Scheduling waits for every informer's first LIST, as upstream waits
 * for its caches: a pod placed before the namespaces or PDBs are known
 * could break an affinity term or a budget. */
static bool all_synced(const runner *r) {
    for (uint32_t k = 0; k < MS_KIND_COUNT; k++)
        if (k != MS_KIND_OTHER && !r->synced[k]) return false;
    return true;
}

static void log_synced(runner *r, uint8_t kind) {
    static const char *const names[] = {"pods", "nodes", "objects", "namespaces", "poddisruptionbudgets",
                                        "persistentvolumes", "persistentvolumeclaims", "storageclasses",
                                        "csinodes", "csidrivers", "csistoragecapacities", "deviceclasses",
                                        "resourceslices", "resourceclaims", "resourceclaimtemplates"};
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
static void log_delta(runner *r, const ms_delta *d) {
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
static void dra_synced(runner *r, const ms_delta *d) {
    ms_dra_kind kind = (ms_dra_kind)(d->kind - MS_KIND_DEVICE_CLASS);
    ms_informer_stats st = {0};
    if (kind == MS_DK_RESOURCE_CLAIM) ms_informer_stats_get(r->dra_inf[kind], &st);
    if (st.lists > 0) ms_scheduler_dra_provided(r->sched);
}

static void apply_delta(runner *r, ms_delta *d, double now) {
    ms_taint_eviction_observe(r->taint_eviction, d);
    if (d->type == MS_DELTA_SYNCED) {
        if (d->kind >= MS_KIND_DEVICE_CLASS && d->kind < MS_KIND_COUNT) dra_synced(r, d);
        if (d->kind < sizeof r->synced / sizeof r->synced[0]) r->synced[d->kind] = true;
        log_synced(r, d->kind);
        return;
    }
    if (ms_scheduler_apply(r->sched, d, now) != MS_OK)
        ms_log(r->log, MS_LOG_ERROR, "out of memory keeping a resource.k8s.io object", NULL);
    if (d->kind == MS_KIND_POD && d->type == MS_DELTA_DELETE) ms_api_reporter_forget(r->reporter, d->pod);
    log_delta(r, d);
}

static size_t drain_deltas(runner *r) {
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

static void warn_config(void *ctx, const char *msg) {
    runner *r = ctx;
    ms_log(r->log, MS_LOG_WARN, "configuration", "warning", msg, NULL);
}

/* ---- Lua policies ------------------------------------------------------ */

static void policy_log(void *ctx, ms_lua_log_level level, const char *policy, const char *msg) {
    runner *r = ctx;
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
    runner *r = ctx;
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
    runner *r = ctx;
    ms_mailbox_wake(&r->policy_wake);
}

static ms_rc setup_policies(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    if (o->npolicy_files == 0 && !ms_config_has_policies(&r->cfg)) return MS_OK;
    if (ms_mailbox_init(&r->policy_wake) != 0) return ms_error_set(err, MS_EIO, "eventfd: %s", strerror(errno));
    ms_policy_set_options po;
    ms_policy_set_options_default(&po);
    po.lua.log = policy_log;
    po.lua.log_ctx = r;
    po.files = o->policy_files;
    po.nfiles = o->npolicy_files;
    po.report = policy_report;
    po.report_ctx = r;
    po.ready = policy_ready;
    po.ready_ctx = r;
    /* A broken file never stops the start (a restart would meet it again):
     * its profile fails closed until the file is fixed. */
    po.tolerate_load_failures = true;
    return ms_policy_set_new(&r->cfg, &po, r->in, &r->policies, err);
}

/* Events about the scheduler itself regard its own Pod when it runs in
 * one (POD_NAME and POD_NAMESPACE from the downward API, POD_UID when
 * given), else the leader-election lock object, which names this
 * scheduler in the cluster whether or not election is on. */
static void setup_self(runner *r) {
    const char *pod = getenv("POD_NAME"), *ns = getenv("POD_NAMESPACE"), *uid = getenv("POD_UID");
    if (pod && *pod && ns && *ns) {
        snprintf(r->self.api_version, sizeof r->self.api_version, "v1");
        snprintf(r->self.kind, sizeof r->self.kind, "Pod");
        snprintf(r->self.ns, sizeof r->self.ns, "%s", ns);
        snprintf(r->self.name, sizeof r->self.name, "%s", pod);
        snprintf(r->self.uid, sizeof r->self.uid, "%s", uid ? uid : "");
        return;
    }
    const ms_leader_election *le = &r->cfg.leader_election;
    const char *lock = le->resource_lock;
    bool endpoints = strcmp(lock, "endpoints") == 0, configmaps = strcmp(lock, "configmaps") == 0;
    snprintf(r->self.api_version, sizeof r->self.api_version, "%s",
             endpoints || configmaps ? "v1" : "coordination.k8s.io/v1");
    snprintf(r->self.kind, sizeof r->self.kind, "%s",
             endpoints ? "Endpoints" : configmaps ? "ConfigMap" : "Lease");
    snprintf(r->self.ns, sizeof r->self.ns, "%s",
             le->resource_namespace[0] ? le->resource_namespace : "kube-system");
    snprintf(r->self.name, sizeof r->self.name, "%s",
             le->resource_name[0] ? le->resource_name : "kube-scheduler");
}

/* The plain port: no authentication, so health only unless
 * --plain-metrics; /debug is the secure port's alone. */
static void plain_serve(void *ctx, const char *path, ms_http_answer *out) {
    const runner *r = ctx;
    if (r->o->plain_metrics || strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0 ||
        strcmp(path, "/readyz") == 0) {
        ms_metrics_serve(r->metrics, path, out);
        return;
    }
    out->status = 404;
    out->body = strdup("404 page not found\n");
}

/* The metrics, and the plain port where one is asked for: it must work. */
static ms_rc setup_metrics(runner *r, ms_error *err) {
    uint32_t npol = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (npol) {
        r->policy_info = calloc(npol, sizeof *r->policy_info);
        r->policy_snap = calloc(npol, sizeof *r->policy_snap);
    }
    if (!r->metrics || (npol && (!r->policy_info || !r->policy_snap)))
        return ms_error_set(err, MS_ENOMEM, "out of memory");

    const char *addr = r->o->metrics_bind_address;
    if (!addr && r->cfg.metrics_bind_address[0]) addr = r->cfg.metrics_bind_address;
    if (!addr && r->cfg.healthz_bind_address[0]) addr = r->cfg.healthz_bind_address;
    if (r->cfg.healthz_bind_address[0] && r->cfg.metrics_bind_address[0] &&
        strcmp(r->cfg.healthz_bind_address, r->cfg.metrics_bind_address) != 0)
        ms_log(r->log, MS_LOG_WARN, "healthzBindAddress differs from metricsBindAddress; serving both on one",
               "address", addr, NULL);
    if (ms_http_address_disabled(addr)) return MS_OK;
    ms_rc rc = ms_http_server_start(addr, plain_serve, r, &r->http, err);
    if (rc != MS_OK) return rc;
    char port[8];
    snprintf(port, sizeof port, "%u", ms_http_server_port(r->http));
    ms_log(r->log, MS_LOG_INFO, r->o->plain_metrics ? "serving metrics and health over plain HTTP"
                                                    : "serving health over plain HTTP",
           "address", addr, "port", port, NULL);
    return MS_OK;
}

/* HTTPS on --secure-port; the reviews go to the scheduler's own API
 * server unless --authentication-kubeconfig / --authorization-kubeconfig
 * name another. */
/* How long a connection waits for the scheduler thread to answer: a
 * scheduling batch is 10 ms, a cycle on a large cluster a few more. */
#define DEBUG_ANSWER_TIMEOUT 10.0

/* On a connection thread: /debug/... through the scheduler thread, the
 * rest (metrics, health) from the metrics, which are thread-safe. Only
 * the secure port serves /debug: it authorizes every request. */
static void secure_serve(void *ctx, const char *path, ms_http_answer *out) {
    runner *r = ctx;
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
    ms_metrics_serve(r->metrics, path, out);
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
static void answer_snapshot(runner *r, ms_http_answer *out, ms_debug_later *later) {
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
    runner *r = ctx;
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

static ms_rc setup_secure_serving(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    if (o->secure_port == 0) {
        ms_log(r->log, MS_LOG_INFO, "secure serving disabled (--secure-port=0)", NULL);
        return MS_OK;
    }
    if (o->secure_port < 0 || o->secure_port > 65535)
        return ms_error_set(err, MS_EINVAL, "--secure-port %d must be between 0 and 65535", o->secure_port);
    if (!(r->debug = ms_debug_requests_new())) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_kubeconfig authn = {0}, authz = {0};
    ms_rc rc = MS_OK;
    if (o->authn_kubeconfig) rc = ms_kubeconfig_load_file(&authn, o->authn_kubeconfig, NULL, err);
    if (rc == MS_OK && o->authz_kubeconfig) rc = ms_kubeconfig_load_file(&authz, o->authz_kubeconfig, NULL, err);
    /* upstream's string slice flag: comma-separated, "" is no path at all */
    char *paths_text = o->always_allow_paths ? strdup(o->always_allow_paths) : NULL;
    const char **paths = o->always_allow_paths ? calloc(strlen(o->always_allow_paths) / 2 + 2, sizeof *paths) : NULL;
    uint32_t npaths = 0;
    if (o->always_allow_paths && (!paths_text || !paths)) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (char *save = NULL, *p = paths_text ? strtok_r(paths_text, ",", &save) : NULL; p;
         p = strtok_r(NULL, ",", &save))
        paths[npaths++] = p;
    if (rc == MS_OK) {
        ms_secure_serving_options so = {.bind_address = o->bind_address, .port = (uint16_t)o->secure_port,
                                        .cert_file = o->tls_cert_file, .key_file = o->tls_key_file,
                                        .tls_min_version = o->tls_min_version,
                                        .tls_cipher_suites = o->tls_cipher_suites,
                                        .authn_config = o->authn_kubeconfig ? &authn : &r->kc,
                                        .authz_config = o->authz_kubeconfig ? &authz : &r->kc,
                                        .always_allow_paths = paths, .nalways_allow_paths = npaths,
                                        .client_ca_file = o->client_ca_file, .metrics = r->metrics,
                                        .handler = secure_serve, .ctx = r, .log = r->log};
        rc = ms_secure_serving_start(&so, &r->https, err);
    }
    free(paths);
    free(paths_text);
    ms_kubeconfig_free(&authn);
    ms_kubeconfig_free(&authz);
    if (rc != MS_OK) return rc;
    char port[8];
    snprintf(port, sizeof port, "%u", ms_secure_serving_port(r->https));
    ms_log(r->log, MS_LOG_INFO, "serving securely", "address",
           o->bind_address && *o->bind_address ? o->bind_address : MS_RUN_DEFAULT_BIND_ADDRESS, "port", port,
           "certificate", o->tls_cert_file ? o->tls_cert_file : "self-signed", NULL);
    return MS_OK;
}

static void leader_gauge(void *ctx, const char *lease, bool leading) {
    ms_metrics_set_leader(ctx, lease, leading);
}

/* After the informers, as upstream: a standby's caches are warm when it
 * takes over. */
static ms_rc setup_leader_election(runner *r, ms_error *err) {
    if (!r->cfg.leader_election.leader_elect) {
        ms_log(r->log, MS_LOG_INFO, "leader election disabled; acting as leader", NULL);
        return MS_OK;
    }
    ms_kube_client_options co = {.config = &r->kc, .credentials = r->credentials, .qps = r->cfg.qps,
                                 .burst = r->cfg.burst, .log = r->log,
                                 .observe = ms_metrics_rest_request, .observe_ctx = r->metrics};
    ms_leader_elector_options eo = {.config = &r->cfg.leader_election, .client = &co, .log = r->log,
                                    .leading_changed = leader_gauge, .leading_ctx = r->metrics,
                                    .post_events = true,
                                    .event_component = r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name
                                                                        : NULL};
    return ms_leader_elector_start(&eo, &r->elector, err);
}

static bool leading(const runner *r) { return !r->elector || ms_leader_elector_leading(r->elector); }

/* ---- controllers beside the scheduler -------------------------------------- */

static bool te_leading(void *ctx) { return leading(ctx); }
static void te_deleted(void *ctx, double latency) { ms_metrics_taint_eviction_deletion(ctx, latency); }
static void te_answered(void *ctx, long status) { ms_metrics_api_request(ctx, status); }

/* After the election: the controller asks it whether to delete. */
static ms_rc setup_controllers(runner *r, ms_error *err) {
    if (!r->o->taint_eviction) return MS_OK;
    ms_metrics_taint_eviction_enable(r->metrics);
    ms_kube_client_options co = {.config = &r->kc, .credentials = r->credentials, .qps = r->cfg.qps,
                                 .burst = r->cfg.burst,
                                 .user_agent = "moonsched/0.1 (taint-eviction-controller)", .log = r->log,
                                 .observe = ms_metrics_rest_request, .observe_ctx = r->metrics};
    ms_rc rc = ms_kube_client_new(&co, &r->te_client, err);
    if (rc != MS_OK) return rc;
    ms_taint_eviction_options to = {.client = r->te_client, .in = r->in, .log = r->log,
                                    .leading = te_leading, .leading_ctx = r,
                                    .deleted = te_deleted, .deleted_ctx = r->metrics,
                                    .answered = te_answered, .answered_ctx = r->metrics};
    return ms_taint_eviction_start(&to, &r->taint_eviction, err);
}

/* The registry comes first: every kube client reports its requests to it. */
static ms_rc new_metrics(runner *r, ms_error *err) {
    const char *names[64];
    uint32_t np = r->cfg.nprofiles < 64 ? r->cfg.nprofiles : 64;
    for (uint32_t i = 0; i < np; i++) names[i] = r->cfg.profiles[i].scheduler_name;
    r->metrics = ms_metrics_new(names, np);
    return r->metrics ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static ms_rc setup_clients(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_kubeconfig *kc = &r->kc;
    const char *file = o->kubeconfig ? o->kubeconfig : r->cfg.kubeconfig;
    ms_rc rc = o->in_cluster ? ms_kubeconfig_in_cluster(kc, NULL, err)
                             : ms_kubeconfig_load_default(kc, file, NULL, err);
    if (rc != MS_OK) return rc;
    ms_metrics_set_rest_host(r->metrics, kc->server);
    if (kc->exec) {
        ms_exec_credential_options eo = {.config = kc, .log = r->log};
        if ((rc = ms_exec_credential_new(&eo, &r->credentials, err)) != MS_OK) return rc;
    }
    ms_kube_client_options co = {.config = kc, .credentials = r->credentials, .qps = r->cfg.qps, .burst = r->cfg.burst,
                                 .user_agent = "moonsched/0.1 (scheduler)", .log = r->log,
                                 .observe = ms_metrics_rest_request, .observe_ctx = r->metrics};
    rc = ms_kube_client_new(&co, &r->client, err);
    if (rc == MS_OK) {
        co.user_agent = "moonsched/0.1 (events)";
        rc = ms_kube_client_new(&co, &r->poster_client, err);
    }
    return rc;
}

/* Events, status patches and evictions: built on this thread, posted by
 * the poster's. */
static ms_rc setup_reporting(runner *r, ms_error *err) {
    /* Each Event names the profile that reports it (ms_api_reporter); this
     * is for none. */
    const char *first = r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name : MS_DEFAULT_SCHEDULER_NAME;
    ms_event_recorder_options ro = {.controller = first, .instance = first};
    if (!(r->events = ms_event_recorder_new(&ro))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_poster_options po = {.client = r->poster_client, .events = r->events, .metrics = r->metrics,
                            .log = r->log};
    ms_rc rc = ms_poster_start(&po, &r->poster, err);
    if (rc != MS_OK) return rc;
    /* Pod disruption conditions came with 1.26: an older server would
     * drop the condition, so it is not sent there. Unknown: tried. */
    bool conditions = r->disruption_conditions = ms_kube_server_at_least(r->client, 1, 26, true);
    ms_log(r->log, MS_LOG_INFO,
           conditions ? "preemption victims get the DisruptionTarget condition"
                      : "server before 1.26: preemption victims get no DisruptionTarget condition",
           NULL);
    ms_api_reporter_options ro2 = {.in = r->in, .poster = r->poster, .events = r->events, .log = r->log,
                                   .event_interval = r->o->event_interval, .event_qps = r->o->event_qps,
                                   .disruption_conditions = conditions};
    if (!(r->reporter = ms_api_reporter_new(&ro2))) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}

static ms_rc setup_scheduler(runner *r, ms_error *err) {
    ms_rc rc = ms_api_volume_binder_new(r->client, r->in, r->metrics, r->log, &r->volume_binder, err);
    if (rc != MS_OK) return rc;
    r->volume_binder_ops = ms_api_volume_binder_vtable(r->volume_binder);
    rc = ms_api_claim_writer_new(r->client, r->in, r->metrics, r->log, &r->claim_writer, err);
    if (rc != MS_OK) return rc;
    r->claim_writer_ops = ms_api_claim_writer_vtable(r->claim_writer);
    if ((rc = ms_http_endpoint_new(&r->extender_http, err)) != MS_OK) return rc;
    r->extender_caller = ms_http_endpoint_caller(r->extender_http);
    ms_scheduler_options so = {
        .config = &r->cfg,
        .in = r->in,
        .binder = {r, run_bind},
        .evictor = {r, run_evict, run_set_nomination},
        .reporter = {.ctx = r, .unschedulable = on_unschedulable, .bind_failed = on_bind_failed,
                     .preempted = on_preempted, .error = on_cycle_error, .post_filter = on_post_filter,
                     .gated = on_gated, .binding_error = on_binding_error},
        .seed = r->o->has_seed ? r->o->seed : r->cfg.has_seed ? r->cfg.seed : (uint64_t)time(NULL),
        .profile_out_of_tree = r->policies ? ms_policy_set_profile_plugins(r->policies) : NULL,
        .n_profile_out_of_tree = r->policies ? ms_policy_set_profile_counts(r->policies) : NULL,
        .keep_objects = r->o->debug_snapshot,
        .record_metrics = true,
        .no_disruption_conditions = !r->disruption_conditions,
        .volume_binder = &r->volume_binder_ops,
        .claim_writer = &r->claim_writer_ops,
        .http = &r->extender_caller,
    };
    rc = ms_scheduler_new(&so, &r->sched, err);
    if (rc == MS_OK && r->policies) rc = ms_policy_set_attach(r->policies, r->sched, err);
    if (rc != MS_OK) return rc;
    uint32_t nb = r->o->bind_workers ? r->o->bind_workers : DEFAULT_BINDS_IN_FLIGHT;
    if (nb > MAX_BINDS_IN_FLIGHT) nb = MAX_BINDS_IN_FLIGHT;
    r->max_binds = 2 * nb;
    return ms_api_binder_new(r->client, r->in, r->metrics, nb, &r->binder, err);
}

/* /configz: the effective configuration as `config check` prints it, under
 * upstream's "componentconfig" key. Set once, before scheduling starts. */
static ms_rc setup_configz(runner *r, ms_error *err) {
    cJSON *doc = cJSON_CreateObject();
    cJSON *eff = doc ? ms_config_describe(&r->cfg, r->sched, err) : NULL;
    if (!eff) {
        cJSON_Delete(doc);
        return doc ? err->rc : ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    cJSON_AddItemToObject(doc, "componentconfig", eff);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    bool ok = text && ms_metrics_set_configz(r->metrics, text);
    cJSON_free(text);
    return ok ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static ms_rc setup_informers(runner *r, ms_error *err) {
    r->deltas = ms_delta_queue_new();
    if (!r->deltas) return ms_error_set(err, MS_ENOMEM, "out of memory");
    const ms_decoder *dec = ms_scheduler_decoder(r->sched);
    /* LIST pages of 100: a page is parsed whole (its text and its JSON
     * tree, some 10 KiB per pod), and 500 pods' worth of that is most of
     * the start-up peak; five times the requests cost nothing measurable. */
    ms_informer_options io = {.client = r->client, .resource = &ms_informer_nodes, .decode_ctx = dec,
                              .queue = r->deltas, .log = r->log, .page_size = 100};
    ms_rc rc;
    if ((rc = ms_informer_start(&io, &r->node_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pods;
    if ((rc = ms_informer_start(&io, &r->pod_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_namespaces;
    if ((rc = ms_informer_start(&io, &r->ns_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pdbs;
    if ((rc = ms_informer_start(&io, &r->pdb_inf, err)) != MS_OK) return rc;
    static const ms_informer_resource *const storage[MS_SK_COUNT] = {
        [MS_SK_PV] = &ms_informer_pvs,
        [MS_SK_PVC] = &ms_informer_pvcs,
        [MS_SK_STORAGE_CLASS] = &ms_informer_storage_classes,
        [MS_SK_CSI_NODE] = &ms_informer_csi_nodes,
        [MS_SK_CSI_DRIVER] = &ms_informer_csi_drivers,
        [MS_SK_CSI_CAPACITY] = &ms_informer_csi_capacities,
    };
    for (uint32_t k = 0; k < MS_SK_COUNT; k++) {
        io.resource = storage[k];
        if ((rc = ms_informer_start(&io, &r->storage_inf[k], err)) != MS_OK) return rc;
    }
    static const ms_informer_resource *const dra[MS_DK_COUNT] = {
        [MS_DK_DEVICE_CLASS] = &ms_informer_device_classes,
        [MS_DK_RESOURCE_SLICE] = &ms_informer_resource_slices,
        [MS_DK_RESOURCE_CLAIM] = &ms_informer_resource_claims,
        [MS_DK_RESOURCE_CLAIM_TEMPLATE] = &ms_informer_resource_claim_templates,
    };
    for (uint32_t k = 0; k < MS_DK_COUNT; k++) {
        io.resource = dra[k];
        if ((rc = ms_informer_start(&io, &r->dra_inf[k], err)) != MS_OK) return rc;
    }
    return MS_OK;
}

static ms_rc copy_flag(const char *flag, const char *v, char *dst, size_t n, ms_error *err) {
    if (!v) return MS_OK;
    if (strlen(v) >= n) return ms_error_set(err, MS_EINVAL, "%s: \"%.64s...\" is too long", flag, v);
    memcpy(dst, v, strlen(v) + 1);
    return MS_OK;
}

/* --scheduler-name and the --leader-elect-* flags over the configuration,
 * then the Lease's default name for the profiles as they now are. */
static ms_rc apply_flags(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_config *c = &r->cfg;
    if (o->scheduler_name && c->nprofiles > 0)
        snprintf(c->profiles[0].scheduler_name, sizeof c->profiles[0].scheduler_name, "%s", o->scheduler_name);
    ms_leader_election *le = &c->leader_election;
    if (o->leader_elect) le->leader_elect = o->leader_elect > 0;
    if (o->le_lease_duration > 0) le->lease_duration = o->le_lease_duration;
    if (o->le_renew_deadline > 0) le->renew_deadline = o->le_renew_deadline;
    if (o->le_retry_period > 0) le->retry_period = o->le_retry_period;
    ms_rc rc;
    if ((rc = copy_flag("--leader-elect-resource-lock", o->le_resource_lock, le->resource_lock,
                        sizeof le->resource_lock, err)) != MS_OK ||
        (rc = copy_flag("--leader-elect-resource-name", o->le_resource_name, le->resource_name,
                        sizeof le->resource_name, err)) != MS_OK ||
        (rc = copy_flag("--leader-elect-resource-namespace", o->le_resource_namespace, le->resource_namespace,
                        sizeof le->resource_namespace, err)) != MS_OK)
        return rc;
    if (o->le_resource_name) le->resource_name_given = true;
    ms_config_default_lease_name(c);
    return ms_config_validate(c, err);
}

static ms_rc setup(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_rc rc = o->config_file ? ms_config_load_file(&r->cfg, o->config_file, warn_config, r, err)
                              : ms_config_default(&r->cfg);
    if (rc != MS_OK) return rc;
    if ((rc = apply_flags(r, err)) != MS_OK) return rc;
    if ((rc = new_metrics(r, err)) != MS_OK) return rc;
    if ((rc = setup_clients(r, err)) != MS_OK) return rc;
    r->in = ms_interner_new();
    if (!r->in) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if ((rc = setup_policies(r, err)) != MS_OK) return rc;
    setup_self(r);
    if ((rc = setup_metrics(r, err)) != MS_OK) return rc;
    if ((rc = setup_secure_serving(r, err)) != MS_OK) return rc;
    if ((rc = setup_reporting(r, err)) != MS_OK) return rc;
    if ((rc = setup_scheduler(r, err)) != MS_OK) return rc;
    if ((rc = setup_configz(r, err)) != MS_OK) return rc;
    if ((rc = setup_informers(r, err)) != MS_OK) return rc;
    if ((rc = setup_leader_election(r, err)) != MS_OK) return rc;
    return setup_controllers(r, err);
}

static void free_deltas(ms_delta_queue *q) {
    ms_delta_queue_close(q);
    ms_delta d[64];
    size_t n;
    while ((n = ms_delta_queue_pop(q, d, 64, 0)) > 0)
        for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_delta_queue_free(q);
}

/* Leaves the final figures in r->st. */
static void teardown(runner *r) {
    /* Before the election goes: it must not act as leader meanwhile. */
    ms_taint_eviction_stop(r->taint_eviction, 2);
    r->taint_eviction = NULL;
    if (r->te_client) ms_kube_client_free(r->te_client);
    /* Binds in flight are done: release the lease at once so that a
     * standby takes over (a lost lease is not ours to release). */
    ms_leader_elector_stop(r->elector, true);
    r->elector = NULL;
    /* First: the HTTP threads read the metrics; none waits for an answer
     * from this thread once the requests are closed. */
    ms_debug_requests_close(r->debug);
    ms_http_server_stop(r->http);
    ms_secure_serving_stop(r->https);
    ms_debug_requests_free(r->debug);
    if (r->pod_inf) ms_informer_stop(r->pod_inf);
    if (r->node_inf) ms_informer_stop(r->node_inf);
    if (r->ns_inf) ms_informer_stop(r->ns_inf);
    if (r->pdb_inf) ms_informer_stop(r->pdb_inf);
    for (uint32_t k = 0; k < MS_SK_COUNT; k++)
        if (r->storage_inf[k]) ms_informer_stop(r->storage_inf[k]);
    for (uint32_t k = 0; k < MS_DK_COUNT; k++)
        if (r->dra_inf[k]) ms_informer_stop(r->dra_inf[k]);
    ms_cache_debugger_stop(r->debugger);
    /* Binds not answered by now are dropped: the pods stay pending on the
     * server and the next scheduler takes them. */
    ms_api_binder_stop(r->binder);
    if (r->binder) drain_completions(r);
    ms_api_volume_binder_stop(r->volume_binder);
    ms_api_claim_writer_stop(r->claim_writer);
    /* What is queued is still sent. */
    if (r->poster) ms_poster_stop(r->poster);
    r->st = run_stats(r);
    ms_api_reporter_free(r->reporter);
    ms_poster_free(r->poster);
    ms_event_recorder_free(r->events);
    ms_api_binder_free(r->binder);
    if (r->deltas) free_deltas(r->deltas);
    if (r->sched) ms_scheduler_free(r->sched);
    /* after the scheduler: its PreBind records point at the vtable */
    ms_api_volume_binder_free(r->volume_binder);
    ms_api_claim_writer_free(r->claim_writer);
    ms_http_endpoint_free(r->extender_http);
    ms_policy_set_free(r->policies);
    ms_mailbox_destroy(&r->policy_wake, NULL);
    if (r->in) ms_interner_free(r->in);
    if (r->client) ms_kube_client_free(r->client);
    if (r->poster_client) ms_kube_client_free(r->poster_client);
    ms_exec_credential_free(r->credentials);
    ms_kubeconfig_free(&r->kc);
    ms_config_free(&r->cfg);
    ms_metrics_free(r->metrics);
    free(r->policy_info);
    free(r->policy_snap);
}

static void log_progress(runner *r, const char *msg) {
    char a[24], b[24], c[24], d[24], e[24], f[24];
    ms_run_stats st = run_stats(r);
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
static void log_unsynced(runner *r) {
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
static void give_back_after_lists(runner *r, loop *l, double now) {
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
static ms_rc wait_and_read(runner *r, loop *l, ms_error *err) {
    /* poll() skips entries whose fd is negative. */
    struct pollfd fds[8] = {
        {.fd = ms_delta_queue_fd(r->deltas), .events = POLLIN},
        {.fd = ms_api_binder_fd(r->binder), .events = POLLIN},
        {.fd = l->sfd, .events = POLLIN},
        {.fd = ms_mailbox_fd(&r->policy_wake), .events = POLLIN},
        {.fd = r->elector ? ms_leader_elector_fd(r->elector) : -1, .events = POLLIN},
        {.fd = ms_debug_requests_fd(r->debug), .events = POLLIN},
        {.fd = ms_api_volume_binder_fd(r->volume_binder), .events = POLLIN},
        {.fd = ms_api_claim_writer_fd(r->claim_writer), .events = POLLIN},
    };
    int timeout_ms = l->more ? 0 : (int)((l->next_tick - ms_clock_monotonic()) * 1000) + 1;
    if (timeout_ms < 0) timeout_ms = 0;
    if (poll(fds, 8, timeout_ms) < 0 && errno != EINTR)
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
    if (fds[1].revents & POLLIN) drain_completions(r);
    if (fds[3].revents & POLLIN) ms_mailbox_drain(&r->policy_wake);
    if (fds[4].revents & POLLIN) drain_fd(fds[4].fd);
    if ((fds[5].revents & POLLIN) && r->sched) ms_debug_requests_serve(r->debug, debug_answer, r);
    if (fds[6].revents & POLLIN) drain_volume_writes(r);
    if (fds[7].revents & POLLIN) ms_api_claim_writer_drain(r->claim_writer, claim_write_failed, r);
    return MS_OK;
}

/* SIGUSR2, as upstream's kube-scheduler: the cache and the queue dumped
 * here, on the thread that owns them, and a view of both handed to the
 * comparer's thread, which compares it with a fresh LIST. */
static void debug_cache(runner *r) {
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
static void schedule_batch(runner *r, loop *l) {
    double until = ms_clock_monotonic() + 0.01;
    for (int i = 0; i < 256 && ms_api_binder_in_flight(r->binder) < r->max_binds; i++) {
        if (!schedule_one_measured(r)) break;
        l->more = true;
        if ((i & 15) == 15 && ms_clock_monotonic() >= until) break;
    }
}

/* One round of the loop; false when it is over (rc says why). */
static bool run_once(runner *r, loop *l, ms_rc *rc, ms_error *err) {
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
    ms_metrics_heartbeat(r->metrics, now);
    if (now >= l->next_tick) {
        ms_scheduler_tick(r->sched, ms_clock_wall());
        metrics_snapshot(r);
        give_back_after_lists(r, l, now);
        l->next_tick = now + l->tick;
    }
    l->more = false;
    if (l->stopping) return ms_api_binder_in_flight(r->binder) > 0 && now < l->stop_deadline;
    if (all_synced(r) && leading(r)) schedule_batch(r, l);
    if (now >= l->next_progress) {
        if (!all_synced(r)) log_unsynced(r);
        if (r->st.binds_ok != l->last_bound) log_progress(r, "progress");
        l->last_bound = r->st.binds_ok;
        l->next_progress = now + 10;
    }
    return true;
}

ms_rc ms_run(const ms_run_options *o, ms_run_stats *stats, ms_error *err) {
    runner rr;
    runner *r = &rr;
    memset(r, 0, sizeof *r);
    r->o = o;
    r->log = o->log ? o->log : &ms_log_default;
    r->policy_wake.fd = -1;

    /* Signals are blocked before any thread starts, so that every thread
     * inherits the mask and only the signalfd sees them. */
    loop l = {.sfd = -1};
    sigset_t mask, old;
    sigemptyset(&mask);
    if (o->handle_signals) {
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGUSR2);   /* the cache debugger */
        pthread_sigmask(SIG_BLOCK, &mask, &old);
        l.sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    }

    ms_rc rc = setup(r, err);
    if (rc == MS_OK) {
        ms_log(r->log, MS_LOG_INFO, "started", "server", ms_kube_client_server(r->client), "profile",
               r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name : "", NULL);
        l.tick = o->tick_interval > 0 ? o->tick_interval : 0.2;
        l.next_tick = ms_clock_monotonic() + l.tick;
        l.next_progress = ms_clock_monotonic() + 10;
        while (run_once(r, &l, &rc, err)) {}
    }
    if (rc == MS_OK) {
        if (ms_api_binder_in_flight(r->binder))
            ms_log(r->log, MS_LOG_WARN, "binds still in flight at shutdown are abandoned", NULL);
        log_progress(r, "stopped");
    }

    teardown(r);
    if (stats) *stats = r->st;
    if (l.sfd >= 0) close(l.sfd);
    if (o->handle_signals) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
