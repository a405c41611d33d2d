/* The taint eviction controller's threads and requests. See
 * taint_eviction_controller.h. */
#include "controllers/taint_eviction_controller.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/map.h"
#include "client/event_recorder.h"
#include "controllers/taint_eviction.h"

enum { DEFAULT_WORKERS = 8, MAX_WORKERS = 64, RETRIES = 5, BATCH = 256 };

/* A pod whose deletion failed RETRIES times in a row is tried again after
 * this long at the earliest. */
#define RETRY_DELAY 5.0

/* When nothing is due and the shard is standby, how often it looks at the
 * leadership again (a deletion becomes due for a new leader within this). */
#define STANDBY_POLL 0.1

typedef struct shard {
    ms_taint_eviction *c;
    ms_delta_queue *nodes, *pods;  /* pods also carry retries (MS_KIND_OTHER) */
    ms_taint_manager *m;
    ms_event_recorder *rec;        /* this thread builds; the engine posts */
    pthread_t thread;
    bool started;
    _Atomic uint32_t nodes_n, pods_n, scheduled_n;
} shard;

struct ms_taint_eviction {
    ms_taint_eviction_options o;
    const ms_logger *log;
    ms_kube_async *engine;
    bool condition;                /* DisruptionTarget before the DELETE */
    atomic_bool stopping;
    uint32_t nshards;
    shard *shards;
    _Atomic uint64_t deletions, gone, failures, cancelled;
};

/* A request and what it needs until its answer. */
typedef struct job {
    ms_taint_eviction *c;
    shard *s;
    ms_pod *pod;                   /* referenced; NULL for Events */
    double fire_at;
    uint32_t attempts;
    char *path, *body;             /* the DELETE (or the Event's POST) */
    char *status_path, *status_body;
    char key[320];                 /* "ns/name", for the log */
} job;

static void job_free(job *j) {
    if (!j) return;
    if (j->pod) ms_pod_unref(j->pod);
    free(j->path);
    free(j->body);
    free(j->status_path);
    free(j->status_body);
    free(j);
}

/* The deltas' release functions. */
static void pod_unref(void *p) { ms_pod_unref(p); }
static void node_unref(void *n) { ms_node_unref(n); }

static void answered(ms_taint_eviction *c, long status) {
    if (c->o.answered) c->o.answered(c->o.answered_ctx, status);
}

/* ---- Events ----------------------------------------------------------------- */

static void event_done(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    job *j = ctx;
    (void)err;
    answered(j->c, rc == MS_OK ? resp->status : 0);
    ms_kube_response_free(resp);
    job_free(j);
}

/* "Marking for deletion Pod NS/NAME" or "Cancelling deletion of Pod
 * NS/NAME": upstream's Normal TaintManagerEviction Events. */
static bool is_leading(const ms_taint_eviction *c) { return !c->o.leading || c->o.leading(c->o.leading_ctx); }

/* Only the leader speaks: a standby cancels in its own state, silently. */
static void post_event(shard *s, const ms_pod *pod, const char *action, const char *fmt) {
    ms_taint_eviction *c = s->c;
    if (!is_leading(c)) return;
    const char *ns = ms_str_get(c->o.in, pod->meta.namespace_), *name = ms_str_get(c->o.in, pod->meta.name);
    char note[640];
    snprintf(note, sizeof note, fmt, ns, name);
    ms_object_ref ref = {.api_version = "v1", .kind = "Pod", .ns = ns, .name = name, .uid = pod->meta.uid};
    ms_event ev = {.regarding = &ref, .type = "Normal", .reason = "TaintManagerEviction", .action = action,
                   .note = note};
    ms_event_post post = {0};
    job *j = calloc(1, sizeof *j);
    if (!j || ms_event_recorder_build(s->rec, &ev, ms_clock_wall(), &post) != MS_OK) {
        free(j);
        return;
    }
    j->c = c;
    j->path = post.path;
    j->body = post.body;
    free(post.fallback_path);      /* the recorder is core/v1 only */
    free(post.fallback_body);
    ms_kube_request r = {.method = "POST", .path = j->path, .body = j->body, .body_len = strlen(j->body)};
    if (ms_kube_async_submit(c->engine, &r, event_done, j) != MS_OK) job_free(j);
}

/* ---- deletions ------------------------------------------------------------------ */

static void submit_delete(job *j);

/* The pod comes back to its shard to be decided again (as a retry). */
static void give_back(job *j) {
    ms_delta d = {.type = MS_DELTA_UPDATE, .kind = MS_KIND_OTHER, .pod = ms_pod_ref(j->pod),
                  .unref = pod_unref};
    if (ms_delta_queue_push(j->s->pods, &d) != MS_OK) ms_delta_release(&d);
}

static void delete_done(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    job *j = ctx;
    ms_taint_eviction *c = j->c;
    long st = rc == MS_OK ? resp->status : 0;
    answered(c, st);
    if (st >= 200 && st < 300) {
        atomic_fetch_add(&c->deletions, 1);
        if (c->o.deleted) c->o.deleted(c->o.deleted_ctx, ms_clock_wall() - j->fire_at);
        ms_log(c->log, MS_LOG_INFO, "taint eviction: pod deleted", "pod", j->key, NULL);
    } else if (st == 404 || st == 409) {
        /* gone, or a new pod under the name (the uid precondition) */
        atomic_fetch_add(&c->gone, 1);
    } else if (rc != MS_ESTATE && ++j->attempts < RETRIES && !atomic_load(&c->stopping)) {
        ms_kube_response_free(resp);
        submit_delete(j);
        return;
    } else {
        char msg[600];
        if (rc == MS_OK) ms_kube_status_message(resp, msg, sizeof msg);
        else snprintf(msg, sizeof msg, "%s", err ? err->msg : "no answer");
        atomic_fetch_add(&c->failures, 1);
        ms_log(c->log, MS_LOG_WARN, "taint eviction: deletion failed", "pod", j->key, "error", msg, NULL);
        if (rc != MS_ESTATE) give_back(j);
    }
    ms_kube_response_free(resp);
    job_free(j);
}

static void submit_delete(job *j) {
    ms_kube_request r = {.method = "DELETE", .path = j->path, .body = j->body, .body_len = strlen(j->body)};
    if (ms_kube_async_submit(j->c->engine, &r, delete_done, j) != MS_OK) job_free(j);
}

/* The condition is best effort: whatever the answer, the DELETE follows
 * (a 404 means there is nothing left to delete). */
static void status_done(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    job *j = ctx;
    (void)err;
    long st = rc == MS_OK ? resp->status : 0;
    answered(j->c, st);
    ms_kube_response_free(resp);
    if (st == 404 || rc == MS_ESTATE) {
        if (st == 404) atomic_fetch_add(&j->c->gone, 1);
        job_free(j);
        return;
    }
    if (st < 200 || st >= 300)
        ms_log(j->c->log, MS_LOG_DEBUG, "taint eviction: DisruptionTarget condition not written", "pod", j->key,
               NULL);
    submit_delete(j);
}

static char *status_patch(double now) {
    char ts[MS_RFC3339_MAX];
    ms_time_rfc3339(now, 0, ts, sizeof ts);
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"status\":{\"conditions\":[{\"type\":\"DisruptionTarget\",\"status\":\"True\","
             "\"reason\":\"DeletionByTaintManager\",\"message\":\"Taint manager: deleting due to NoExecute "
             "taint\",\"lastTransitionTime\":\"%s\"}]}}",
             ts);
    return strdup(buf);
}

static job *eviction_job(shard *s, ms_pod *pod, double fire_at) {
    ms_taint_eviction *c = s->c;
    job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->c = c;
    j->s = s;
    j->pod = ms_pod_ref(pod);
    j->fire_at = fire_at;
    const char *ns = ms_str_get(c->o.in, pod->meta.namespace_), *name = ms_str_get(c->o.in, pod->meta.name);
    snprintf(j->key, sizeof j->key, "%s/%s", ns, name);
    char path[640], body[256];
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s", ns, name);
    snprintf(body, sizeof body,
             "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"preconditions\":{\"uid\":\"%s\"}}",
             pod->meta.uid);
    j->path = strdup(path);
    j->body = strdup(body);
    if (c->condition) {
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/pods/%s/status", ns, name);
        j->status_path = strdup(path);
        j->status_body = status_patch(ms_clock_wall());
    }
    if (!j->path || !j->body || (c->condition && (!j->status_path || !j->status_body))) {
        job_free(j);
        return NULL;
    }
    return j;
}

/* The manager's sink: a pod is due (shard thread). */
static void on_evict(void *ctx, ms_pod *pod, double fire_at) {
    shard *s = ctx;
    ms_taint_eviction *c = s->c;
    job *j = eviction_job(s, pod, fire_at);
    if (!j) {
        give_back(&(job){.s = s, .pod = pod});
        return;
    }
    /* The deadline as decided, not when it fired: how late the deletion came
     * is the machine's, when it was due is the decision's. */
    char due[MS_RFC3339_MAX];
    ms_time_rfc3339(fire_at, 6, due, sizeof due);
    ms_log(c->log, MS_LOG_INFO, "taint eviction: deleting pod", "pod", j->key, "deadline", due, NULL);
    post_event(s, pod, "Delete", "Marking for deletion Pod %s/%s");
    if (!j->status_path) {
        submit_delete(j);
        return;
    }
    ms_kube_request r = {.method = "PATCH", .path = j->status_path, .body = j->status_body,
                         .body_len = strlen(j->status_body),
                         .content_type = "application/strategic-merge-patch+json"};
    if (ms_kube_async_submit(c->engine, &r, status_done, j) != MS_OK) job_free(j);
}

static void on_cancelled(void *ctx, const ms_pod *pod) {
    shard *s = ctx;
    atomic_fetch_add(&s->c->cancelled, 1);
    char key[320];
    ms_pod_key(pod, s->c->o.in, key, sizeof key);
    ms_log(s->c->log, MS_LOG_INFO, "taint eviction: deletion cancelled", "pod", key, NULL);
    post_event(s, pod, "Cancel", "Cancelling deletion of Pod %s/%s");
}

/* ---- shards -------------------------------------------------------------------- */

static void apply(shard *s, ms_delta *d, double now) {
    ms_taint_manager *m = s->m;
    if (d->kind == MS_KIND_NODE) {
        if (d->type == MS_DELTA_DELETE) ms_taint_manager_node_delete(m, d->node->meta.name, now);
        else ms_taint_manager_node_update(m, d->node, now);
    } else if (d->kind == MS_KIND_POD) {
        if (d->type == MS_DELTA_DELETE) ms_taint_manager_pod_delete(m, d->pod, now);
        else ms_taint_manager_pod_update(m, d->pod, now);
    } else if (d->kind == MS_KIND_OTHER) {
        ms_taint_manager_retry(m, d->pod, now, now + RETRY_DELAY);
    }
}

/* Applies one batch from q; its size (0: q was empty). */
static size_t apply_batch(shard *s, ms_delta_queue *q) {
    ms_delta batch[BATCH];
    size_t n = ms_delta_queue_pop(q, batch, BATCH, 0);
    double now = ms_clock_wall();
    for (size_t i = 0; i < n; i++) {
        apply(s, &batch[i], now);
        ms_delta_release(&batch[i]);
    }
    return n;
}

/* Node changes first, every time: a pod's verdict must not be taken on a
 * node state older than what has arrived. */
static void drain(shard *s) {
    for (;;) {
        bool any = false;
        while (apply_batch(s, s->nodes) > 0) any = true;
        if (apply_batch(s, s->pods) > 0) any = true;
        if (!any) return;
    }
}

static void publish_stats(shard *s) {
    ms_taint_manager_stats st;
    ms_taint_manager_stats_get(s->m, &st);
    atomic_store(&s->nodes_n, st.nodes);
    atomic_store(&s->pods_n, st.pods);
    atomic_store(&s->scheduled_n, st.scheduled);
}

static void *shard_main(void *arg) {
    shard *s = arg;
    ms_taint_eviction *c = s->c;
    while (!atomic_load(&c->stopping)) {
        drain(s);
        double now = ms_clock_wall();
        bool leader = is_leading(c);
        /* bounded, so that new changes are not kept waiting behind a
         * node's thousands of due pods */
        if (leader) ms_taint_manager_fire(s->m, now, BATCH);
        publish_stats(s);
        double next = ms_taint_manager_next(s->m), wait = 1.0;
        if (next >= 0) {
            if (!leader) wait = next <= now ? STANDBY_POLL : (next - now < wait ? next - now : wait);
            else wait = next <= now ? 0 : (next - now < wait ? next - now : wait);
        }
        if (!leader && wait > STANDBY_POLL && next >= 0) wait = STANDBY_POLL;
        struct pollfd fds[2] = {{.fd = ms_delta_queue_fd(s->nodes), .events = POLLIN},
                                {.fd = ms_delta_queue_fd(s->pods), .events = POLLIN}};
        int ms = (int)(wait * 1000) + (wait > 0 ? 1 : 0);
        if (poll(fds, 2, ms) < 0 && errno != EINTR) break;
    }
    return NULL;
}

/* upstream's hash(nodeName, workers): FNV-1a, 32 bits */
static uint32_t shard_of(const ms_taint_eviction *c, const char *node) {
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)node; *p; p++) h = (h ^ *p) * 16777619u;
    return h % c->nshards;
}

void ms_taint_eviction_observe(ms_taint_eviction *c, const ms_delta *d) {
    if (!c || !d->obj || (d->type != MS_DELTA_ADD && d->type != MS_DELTA_UPDATE && d->type != MS_DELTA_DELETE))
        return;
    ms_delta copy = *d;
    ms_delta_queue *q;
    if (d->kind == MS_KIND_NODE) {
        q = c->shards[shard_of(c, ms_str_get(c->o.in, d->node->meta.name))].nodes;
        ms_node_ref(d->node);
        copy.unref = node_unref;
    } else if (d->kind == MS_KIND_POD && d->pod->node_name != MS_STR_NONE) {
        q = c->shards[shard_of(c, ms_str_get(c->o.in, d->pod->node_name))].pods;
        ms_pod_ref(d->pod);
        copy.unref = pod_unref;
    } else {
        return;
    }
    if (ms_delta_queue_push(q, &copy) == MS_ENOMEM) ms_delta_release(&copy);
}

/* ---- life cycle ------------------------------------------------------------------ */

/* Pod disruption conditions came with 1.26 (beta, on by default). When
 * the version cannot be read, the condition is tried: a server without
 * it refuses or keeps a condition it does not know, and the DELETE
 * follows either way. */
static bool server_has_conditions(ms_taint_eviction *c) {
    if (c->o.disruption_condition) return c->o.disruption_condition > 0;
    return ms_kube_server_at_least(c->o.client, 1, 26, true);
}

static ms_rc shard_init(ms_taint_eviction *c, shard *s) {
    s->c = c;
    ms_te_sink sink = {.ctx = s, .evict = on_evict, .cancelled = on_cancelled};
    ms_event_recorder_options ro = {.controller = MS_TAINT_EVICTION_CONTROLLER, .instance = "moonsched",
                                    .core_only = true};
    s->nodes = ms_delta_queue_new();
    s->pods = ms_delta_queue_new();
    s->m = ms_taint_manager_new(&sink);
    s->rec = ms_event_recorder_new(&ro);
    if (!s->nodes || !s->pods || !s->m || !s->rec) return MS_ENOMEM;
    if (pthread_create(&s->thread, NULL, shard_main, s) != 0) return MS_EIO;
    s->started = true;
    return MS_OK;
}

ms_rc ms_taint_eviction_start(const ms_taint_eviction_options *o, ms_taint_eviction **out, ms_error *err) {
    *out = NULL;
    ms_taint_eviction *c = calloc(1, sizeof *c);
    if (!c) return ms_error_set(err, MS_ENOMEM, "out of memory");
    c->o = *o;
    c->log = o->log ? o->log : &ms_log_default;
    c->nshards = o->workers ? o->workers : DEFAULT_WORKERS;
    if (c->nshards > MAX_WORKERS) c->nshards = MAX_WORKERS;
    c->condition = server_has_conditions(c);
    ms_rc rc = ms_kube_async_new(o->client, o->max_in_flight, &c->engine, err);
    if (rc != MS_OK) {
        free(c);
        return rc;
    }
    if (!(c->shards = calloc(c->nshards, sizeof *c->shards))) rc = MS_ENOMEM;
    for (uint32_t i = 0; rc == MS_OK && i < c->nshards; i++) rc = shard_init(c, &c->shards[i]);
    if (rc != MS_OK) {
        ms_taint_eviction_stop(c, 0);
        return ms_error_set(err, rc, "taint eviction controller: cannot start its workers");
    }
    char n[16];
    snprintf(n, sizeof n, "%u", c->nshards);
    ms_log(c->log, MS_LOG_INFO, "taint eviction controller started", "workers", n, "disruption_condition",
           c->condition ? "true" : "false", NULL);
    *out = c;
    return MS_OK;
}

void ms_taint_eviction_stop(ms_taint_eviction *c, double drain) {
    if (!c) return;
    atomic_store(&c->stopping, true);
    for (uint32_t i = 0; c->shards && i < c->nshards; i++) {
        shard *s = &c->shards[i];
        if (s->nodes) ms_delta_queue_close(s->nodes);   /* wakes the shard */
        if (s->started) pthread_join(s->thread, NULL);
    }
    /* Requests in flight may still give pods back to their shards: the
     * engine goes first, then the queues. */
    ms_kube_async_free(c->engine, drain);
    for (uint32_t i = 0; c->shards && i < c->nshards; i++) {
        shard *s = &c->shards[i];
        if (s->nodes) ms_delta_queue_free(s->nodes);
        if (s->pods) ms_delta_queue_free(s->pods);
        ms_taint_manager_free(s->m);
        ms_event_recorder_free(s->rec);
    }
    free(c->shards);
    free(c);
}

void ms_taint_eviction_stats_get(ms_taint_eviction *c, ms_taint_eviction_stats *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < c->nshards; i++) {
        out->nodes += atomic_load(&c->shards[i].nodes_n);
        out->pods += atomic_load(&c->shards[i].pods_n);
        out->scheduled += atomic_load(&c->shards[i].scheduled_n);
    }
    out->deletions = atomic_load(&c->deletions);
    out->gone = atomic_load(&c->gone);
    out->failures = atomic_load(&c->failures);
    out->cancelled = atomic_load(&c->cancelled);
}
