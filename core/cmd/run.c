/* `moonsched run`: informers -> delta queue -> scheduler thread -> binder
 * (one thread multiplexing binds over a shared connection) and a poster
 * thread. See include/moonsched/run.h. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "backend/queue.h"
#include "base/map.h"
#include "base/rate_limiter.h"
#include "client/delta_queue.h"
#include "client/informer.h"
#include "client/kube_client.h"
#include "client/kubeconfig.h"
#include "client/leader_election.h"
#include "cmd/http_server.h"
#include "cmd/metrics.h"
#include "moonsched/config.h"
#include "moonsched/policy_set.h"
#include "moonsched/run.h"
#include "moonsched/scheduler.h"

void ms_run_options_default(ms_run_options *o) {
    memset(o, 0, sizeof *o);
    o->handle_signals = true;
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void rfc3339(double t, char *buf, size_t n, bool micro) {
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro) snprintf(buf + k, n - k, ".%06ldZ", (long)((t - (double)s) * 1e6));
    else snprintf(buf + k, n - k, "Z");
}

/* ---- a job list shared by the scheduler thread and workers ----------- */

/* One request: a bind (pod set, answers come back) or a report (fire and
 * forget, fallback_path tried on 404). Strings are built on the scheduler
 * thread, where the interner's ids are resolved. */
typedef struct job {
    struct job *next;
    ms_pod *pod;                   /* binds: referenced */
    void *owner;                   /* binds: the runner */
    char *method, *path, *body, *fallback_path, *fallback_body;
    const char *content_type;
    bool ok, gone, dropped;        /* dropped: never answered (shutdown) */
    char message[256];
    double attempt_start;          /* binds: monotonic start of the attempt, for metrics */
    uint32_t profile;
} job;

typedef struct jobq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job *head, *tail;
    job *uhead, *utail;            /* urgent ones, popped first */
    uint32_t len;
    bool closed;
} jobq;

static void jobq_init(jobq *q) {
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
}

static void job_free(job *j) {
    if (!j) return;
    if (j->pod) ms_pod_unref(j->pod);
    free(j->path);
    free(j->body);
    free(j->fallback_path);
    free(j->fallback_body);
    free(j);
}

static void jobq_destroy(jobq *q) {
    for (job *j = q->uhead; j;) {
        job *n = j->next;
        job_free(j);
        j = n;
    }
    for (job *j = q->head; j;) {
        job *n = j->next;
        job_free(j);
        j = n;
    }
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

static bool jobq_push_to(jobq *q, job *j, bool urgent) {
    j->next = NULL;
    pthread_mutex_lock(&q->mu);
    bool was_empty = !q->head && !q->uhead;
    job **head = urgent ? &q->uhead : &q->head, **tail = urgent ? &q->utail : &q->tail;
    if (*tail) (*tail)->next = j;
    else *head = j;
    *tail = j;
    q->len++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return was_empty;
}

static bool jobq_push(jobq *q, job *j) { return jobq_push_to(q, j, false); }

/* Blocks until a job or close; NULL when closed and empty. */
static job *jobq_pop_wait(jobq *q) {
    pthread_mutex_lock(&q->mu);
    while (!q->uhead && !q->head && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    job *j = q->uhead;
    if (j) {
        q->uhead = j->next;
        if (!q->uhead) q->utail = NULL;
        q->len--;
    } else if ((j = q->head)) {
        q->head = j->next;
        if (!q->head) q->tail = NULL;
        q->len--;
    }
    pthread_mutex_unlock(&q->mu);
    return j;
}

/* Takes the whole list at once (the scheduler thread draining completions),
 * urgent ones first. */
static job *jobq_take_all(jobq *q) {
    pthread_mutex_lock(&q->mu);
    job *j = q->head;
    if (q->uhead) {
        q->utail->next = q->head;
        j = q->uhead;
    }
    q->head = q->tail = q->uhead = q->utail = NULL;
    q->len = 0;
    pthread_mutex_unlock(&q->mu);
    return j;
}

static uint32_t jobq_len(jobq *q) {
    pthread_mutex_lock(&q->mu);
    uint32_t n = q->len;
    pthread_mutex_unlock(&q->mu);
    return n;
}

static void jobq_close(jobq *q) {
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* ---- the runner --------------------------------------------------------- */

/* Binds on the wire at once (HTTP/2 streams), by default; the scheduler
 * stops popping pods while twice that many wait for their outcome: each
 * holds its cycle record and the pod, and scheduling far ahead of the API
 * server gains nothing. */
enum { DEFAULT_BINDS_IN_FLIGHT = 64, MAX_BINDS_IN_FLIGHT = 1024, POSTER_BACKLOG = 20000 };

/* Per pod: what was last reported, for aggregation. */
typedef struct pod_report {
    double failed_last;            /* FailedScheduling event last posted */
    uint32_t failed_repeats;       /* reports since then not posted */
    uint32_t failed_total;
    uint64_t status_msg_hash;      /* message of the last PodScheduled=False patch */
} pod_report;

typedef struct runner {
    const ms_run_options *o;
    const ms_logger *log;
    ms_interner *in;
    ms_config cfg;
    ms_scheduler *sched;
    ms_kube_client *client, *poster_client;
    ms_delta_queue *deltas;
    ms_informer *pod_inf, *node_inf, *ns_inf, *pdb_inf;
    bool synced[MS_KIND_PDB + 1];  /* per ms_object_kind: first LIST delivered */

    jobq done_q, post_q;
    int done_fd;                   /* eventfd: completions waiting */
    ms_kube_async *binder;
    uint32_t max_binds;            /* binds awaiting an outcome before popping stops */
    pthread_t poster;
    bool poster_started;
    uint32_t binds_in_flight;

    ms_map reports;                /* uid_hash -> pod_report */
    ms_rate_limiter *event_bucket;
    double event_interval;
    uint64_t event_seq;
    bool events_v1_missing;        /* events.k8s.io/v1 answered 404: core/v1 only */
    ms_run_stats st;
    pthread_mutex_t st_mu;         /* counters the poster updates */

    ms_policy_set *policies;       /* Lua policies; NULL without any */
    int policy_fd;                 /* eventfd: a reload waits for ms_policy_set_poll */

    /* What Events about the scheduler itself (policies) regard: its Pod,
     * or the leader-election lock object. */
    struct {
        char api_version[32], kind[32], ns[256], name[256], uid[64];
    } self;

    ms_kubeconfig kc;              /* kept for the leader elector's client */
    ms_leader_elector *elector;    /* NULL: election off, always leading */

    ms_metrics *metrics;           /* thread-safe; the HTTP thread reads it */
    ms_http_server *http;
    ms_metrics_policy *policy_snap;   /* scratch for the policies' figures */
    /* The attempt in progress (schedule_one), for its metrics. */
    bool in_cycle, cycle_error;
    int cycle_result;              /* ms_attempt_result, or -1: no outcome yet */
    uint32_t cycle_profile, cycle_victims;
    double cycle_start;
} runner;

/* On the binder's thread. */
static void bind_answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    job *j = ctx;
    runner *r = j->owner;
    ms_metrics_api_request(r->metrics, rc == MS_OK ? resp->status : 0);
    if (rc == MS_OK && resp->status >= 200 && resp->status < 300) {
        j->ok = true;
    } else if (rc == MS_OK) {
        j->gone = resp->status == 404 || resp->status == 409;
        char msg[200];
        ms_kube_status_message(resp, msg, sizeof msg);
        snprintf(j->message, sizeof j->message, "binding rejected (%ld): %s", resp->status, msg);
    } else {
        j->dropped = rc == MS_ESTATE;
        snprintf(j->message, sizeof j->message, "binding failed: %.200s", err ? err->msg : "");
    }
    ms_kube_response_free(resp);
    if (!jobq_push(&r->done_q, j)) return;   /* the loop has a wakeup coming */
    uint64_t one = 1;
    if (write(r->done_fd, &one, sizeof one) < 0) { /* counter saturated: still readable */ }
}

static void *poster_main(void *arg) {
    runner *r = arg;
    job *j;
    while ((j = jobq_pop_wait(&r->post_q))) {
        ms_kube_request rq = {.method = j->method, .path = j->path, .body = j->body,
                              .body_len = strlen(j->body), .content_type = j->content_type};
        ms_kube_response resp;
        ms_error err = {0};
        ms_rc rc = ms_kube_do(r->poster_client, &rq, &resp, &err);
        ms_metrics_api_request(r->metrics, rc == MS_OK ? resp.status : 0);
        bool is_event = strstr(j->path, "/events") != NULL;
        bool is_delete = strcmp(j->method, "DELETE") == 0;
        if (!j->body[0]) rq.body = NULL, rq.body_len = 0;
        if (rc == MS_OK && resp.status == 404 && j->fallback_path) {
            /* events.k8s.io/v1 missing: core/v1 from now on. */
            __atomic_store_n(&r->events_v1_missing, true, __ATOMIC_RELAXED);
            ms_kube_response_free(&resp);
            rq.path = j->fallback_path;
            rq.body = j->fallback_body;
            rq.body_len = strlen(j->fallback_body);
            rc = ms_kube_do(r->poster_client, &rq, &resp, &err);
            ms_metrics_api_request(r->metrics, rc == MS_OK ? resp.status : 0);
        }
        bool ok = rc == MS_OK && resp.status >= 200 && resp.status < 300;
        if (!ok) {
            char msg[200] = "";
            if (rc == MS_OK) ms_kube_status_message(&resp, msg, sizeof msg);
            char st[16];
            snprintf(st, sizeof st, "%ld", resp.status);
            /* A pod deleted meanwhile is not worth a warning. */
            ms_log(r->log, resp.status == 404 ? MS_LOG_DEBUG : MS_LOG_WARN,
                   is_event                           ? "event not posted"
                   : is_delete                        ? "victim not deleted"
                                                      : "status not patched",
                   "path", j->path,
                   "status", st, "error", rc == MS_OK ? msg : err.msg, NULL);
        }
        pthread_mutex_lock(&r->st_mu);
        if (is_event) {
            if (ok) r->st.events_posted++;
            else r->st.events_failed++;
        } else if (ok && !is_delete) {
            r->st.status_patches++;
        }
        pthread_mutex_unlock(&r->st_mu);
        ms_kube_response_free(&resp);
        job_free(j);
    }
    return NULL;
}

/* Reports wait their turn; `urgent` ones (preemption's deletions and
 * nominations, which a preemptor waits for) go before the waiting status
 * patches and events, which can be thousands when many pods do not fit. */
static void post_to(runner *r, const char *method, char *path, cJSON *body, const char *ctype,
                    char *fallback_path, cJSON *fallback_body, bool urgent) {
    job *j = calloc(1, sizeof *j);
    char *b = body ? cJSON_PrintUnformatted(body) : NULL;
    char *fb = fallback_body ? cJSON_PrintUnformatted(fallback_body) : NULL;
    cJSON_Delete(body);
    cJSON_Delete(fallback_body);
    if (!j || !b || !path || (!urgent && jobq_len(&r->post_q) >= POSTER_BACKLOG)) {
        /* Reports are best effort: the scheduler's own work goes on. */
        free(j);
        free(b);
        free(fb);
        free(path);
        free(fallback_path);
        pthread_mutex_lock(&r->st_mu);
        r->st.events_suppressed++;
        pthread_mutex_unlock(&r->st_mu);
        return;
    }
    j->method = (char *)method;
    j->path = path;
    j->body = b;
    j->content_type = ctype;
    j->fallback_path = fb ? fallback_path : NULL;
    j->fallback_body = fb;
    if (!fb) free(fallback_path);
    jobq_push_to(&r->post_q, j, urgent);
}

static void post(runner *r, const char *method, char *path, cJSON *body, const char *ctype,
                 char *fallback_path, cJSON *fallback_body) {
    post_to(r, method, path, body, ctype, fallback_path, fallback_body, false);
}

static char *dupf(const char *fmt, const char *a, const char *b) {
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, fmt, a, b ? b : "");
    return s;
}

static const char *sget(const runner *r, ms_str s) {
    const char *v = s == MS_STR_NONE ? "" : ms_str_get(r->in, s);
    return v ? v : "";
}

/* What an Event regards (uid may be empty). */
typedef struct event_object {
    const char *api_version, *kind, *ns, *name, *uid;
} event_object;

static void add_ref(cJSON *obj, const char *field, const event_object *o) {
    cJSON *ref = cJSON_AddObjectToObject(obj, field);
    cJSON_AddStringToObject(ref, "apiVersion", o->api_version);
    cJSON_AddStringToObject(ref, "kind", o->kind);
    cJSON_AddStringToObject(ref, "namespace", o->ns);
    cJSON_AddStringToObject(ref, "name", o->name);
    if (o->uid && o->uid[0]) cJSON_AddStringToObject(ref, "uid", o->uid);
}

/* An event, events.k8s.io/v1 first, core/v1 when the server has no
 * events.k8s.io/v1 (the fallback is prepared alongside). `related`
 * (optional) is the second object upstream's recorder names, e.g. the
 * preemptor on a victim's event; core/v1 events have no place for it. */
static void post_event_about(runner *r, const event_object *obj, const event_object *related,
                             const char *type, const char *reason, const char *action,
                             const char *note, uint32_t repeats) {
    const char *ns = obj->ns, *name = obj->name;
    char ename[300], now[40], now_s[32];
    double t = wall_now();
    snprintf(ename, sizeof ename, "%s.%llx%04llx", name, (unsigned long long)(t * 1e6),
             (unsigned long long)(r->event_seq++ & 0xffff));
    rfc3339(t, now, sizeof now, true);
    rfc3339(t, now_s, sizeof now_s, false);
    const char *host = "moonsched";

    cJSON *v1 = cJSON_CreateObject();
    cJSON_AddStringToObject(v1, "apiVersion", "events.k8s.io/v1");
    cJSON_AddStringToObject(v1, "kind", "Event");
    cJSON *m = cJSON_AddObjectToObject(v1, "metadata");
    cJSON_AddStringToObject(m, "name", ename);
    cJSON_AddStringToObject(m, "namespace", ns);
    cJSON_AddStringToObject(v1, "eventTime", now);
    cJSON_AddStringToObject(v1, "reportingController", "default-scheduler");
    cJSON_AddStringToObject(v1, "reportingInstance", host);
    cJSON_AddStringToObject(v1, "action", action);
    cJSON_AddStringToObject(v1, "reason", reason);
    cJSON_AddStringToObject(v1, "type", type);
    cJSON_AddStringToObject(v1, "note", note);
    add_ref(v1, "regarding", obj);
    if (related) add_ref(v1, "related", related);
    if (repeats > 1) {
        cJSON *series = cJSON_AddObjectToObject(v1, "series");
        cJSON_AddNumberToObject(series, "count", repeats);
        cJSON_AddStringToObject(series, "lastObservedTime", now);
    }

    cJSON *core = cJSON_CreateObject();
    cJSON_AddStringToObject(core, "apiVersion", "v1");
    cJSON_AddStringToObject(core, "kind", "Event");
    m = cJSON_AddObjectToObject(core, "metadata");
    cJSON_AddStringToObject(m, "name", ename);
    cJSON_AddStringToObject(m, "namespace", ns);
    add_ref(core, "involvedObject", obj);
    cJSON_AddStringToObject(core, "reason", reason);
    cJSON_AddStringToObject(core, "message", note);
    cJSON_AddStringToObject(core, "type", type);
    cJSON_AddNumberToObject(core, "count", repeats ? repeats : 1);
    cJSON_AddStringToObject(core, "firstTimestamp", now_s);
    cJSON_AddStringToObject(core, "lastTimestamp", now_s);
    cJSON *src = cJSON_AddObjectToObject(core, "source");
    cJSON_AddStringToObject(src, "component", "default-scheduler");

    char *core_path = dupf("/api/v1/namespaces/%s/events", ns, NULL);
    if (__atomic_load_n(&r->events_v1_missing, __ATOMIC_RELAXED)) {
        cJSON_Delete(v1);
        post(r, "POST", core_path, core, NULL, NULL, NULL);
    } else {
        post(r, "POST", dupf("/apis/events.k8s.io/v1/namespaces/%s/events", ns, NULL), v1, NULL,
             core_path, core);
    }
}

static void post_event(runner *r, const ms_pod *pod, const ms_pod *related, const char *type,
                       const char *reason, const char *action, const char *note,
                       uint32_t repeats) {
    event_object obj = {"v1", "Pod", sget(r, pod->meta.namespace_), sget(r, pod->meta.name),
                        pod->meta.uid};
    event_object rel = {"v1", "Pod", related ? sget(r, related->meta.namespace_) : "",
                        related ? sget(r, related->meta.name) : "", related ? related->meta.uid : NULL};
    post_event_about(r, &obj, related ? &rel : NULL, type, reason, action, note, repeats);
}

/* The global budget: an event that finds no token is dropped (counted). */
static bool event_allowed(runner *r) {
    if (ms_rate_limiter_tokens(r->event_bucket) < 1) {
        pthread_mutex_lock(&r->st_mu);
        r->st.events_suppressed++;
        pthread_mutex_unlock(&r->st_mu);
        return false;
    }
    ms_rate_limiter_reserve(r->event_bucket);
    return true;
}

static pod_report *report_of(runner *r, const ms_pod *pod) {
    pod_report *pr = ms_map_get(&r->reports, pod->meta.uid_hash);
    if (pr) return pr;
    pr = calloc(1, sizeof *pr);
    if (!pr) return NULL;
    if (ms_map_put(&r->reports, pod->meta.uid_hash, pr) != MS_OK) {
        free(pr);
        return NULL;
    }
    return pr;
}

static void forget_report(runner *r, const ms_pod *pod) {
    free(ms_map_del(&r->reports, pod->meta.uid_hash));
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
    r->cycle_start = mono_now();
    bool popped = ms_scheduler_schedule_one(r->sched, wall_now());
    r->in_cycle = false;
    if (r->cycle_result == MS_ATTEMPT_UNSCHEDULABLE || r->cycle_result == MS_ATTEMPT_ERROR)
        ms_metrics_attempt(r->metrics, r->cycle_profile, (ms_attempt_result)r->cycle_result,
                           mono_now() - r->cycle_start);
    return popped;
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

static bool all_synced(const runner *r);

/* The figures that are states rather than events, at cycle boundaries. */
static void metrics_snapshot(runner *r) {
    ms_queue *q = ms_scheduler_queue(r->sched);
    ms_metrics_set_pending(r->metrics, ms_queue_len_active(q), ms_queue_len_backoff(q),
                           ms_queue_len_unschedulable(q));
    pthread_mutex_lock(&r->st_mu);
    uint64_t posted = r->st.events_posted, failed = r->st.events_failed,
             suppressed = r->st.events_suppressed;
    pthread_mutex_unlock(&r->st_mu);
    ms_metrics_events(r->metrics, posted, failed, suppressed);
    /* ready: scheduling has started, every informer's first LIST is in */
    ms_metrics_set_ready(r->metrics, all_synced(r));
    uint32_t n = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (n && r->policy_snap) {
        for (uint32_t i = 0; i < n; i++) {
            ms_policy_info info;
            ms_policy_set_info(r->policies, i, &info);
            r->policy_snap[i] = (ms_metrics_policy){info.profile, info.plugin, info.stats, info.disabled};
        }
        ms_metrics_set_policies(r->metrics, r->policy_snap, n);
    }
}

/* ---- binder and reporter callbacks (scheduler thread) ----------------- */

static ms_rc run_bind(void *ctx, const ms_pod *pod, ms_str node) {
    runner *r = ctx;
    const char *ns = sget(r, pod->meta.namespace_), *name = sget(r, pod->meta.name);
    job *j = calloc(1, sizeof *j);
    if (!j) return MS_ENOMEM;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "apiVersion", "v1");
    cJSON_AddStringToObject(b, "kind", "Binding");
    cJSON *m = cJSON_AddObjectToObject(b, "metadata");
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddStringToObject(m, "namespace", ns);
    if (pod->meta.uid && pod->meta.uid[0]) cJSON_AddStringToObject(m, "uid", pod->meta.uid);
    cJSON *t = cJSON_AddObjectToObject(b, "target");
    cJSON_AddStringToObject(t, "apiVersion", "v1");
    cJSON_AddStringToObject(t, "kind", "Node");
    cJSON_AddStringToObject(t, "name", sget(r, node));
    j->body = cJSON_PrintUnformatted(b);
    cJSON_Delete(b);
    size_t n = strlen(ns) + strlen(name) + 64;
    j->path = malloc(n);
    if (!j->body || !j->path) {
        job_free(j);
        return MS_ENOMEM;
    }
    snprintf(j->path, n, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
    j->pod = ms_pod_ref((ms_pod *)pod);
    j->owner = r;
    j->attempt_start = r->in_cycle ? r->cycle_start : mono_now();
    j->profile = profile_of_pod(r, pod);
    j->method = "POST";
    ms_kube_request rq = {.method = j->method, .path = j->path, .body = j->body,
                          .body_len = strlen(j->body)};
    ms_rc rc = ms_kube_async_submit(r->binder, &rq, bind_answered, j);
    if (rc != MS_OK) {
        job_free(j);
        return rc;
    }
    r->binds_in_flight++;
    return MS_OK;
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    runner *r = ctx;
    (void)attempts;
    r->st.unschedulable++;
    attempt_failed(r, pod);
    pod_report *pr = report_of(r, pod);
    char key[512];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, "unschedulable", "pod", key, "message", message, NULL);
    if (!pr) return;
    double now = mono_now();
    uint64_t h = ms_hash_bytes(message, strlen(message));
    if (pr->status_msg_hash != h) {
        pr->status_msg_hash = h;
        cJSON *b = cJSON_CreateObject();
        cJSON *conds = cJSON_AddArrayToObject(cJSON_AddObjectToObject(b, "status"), "conditions");
        cJSON *c = cJSON_CreateObject();
        char ts[32];
        rfc3339(wall_now(), ts, sizeof ts, false);
        cJSON_AddStringToObject(c, "type", "PodScheduled");
        cJSON_AddStringToObject(c, "status", "False");
        cJSON_AddNullToObject(c, "lastProbeTime");
        cJSON_AddStringToObject(c, "lastTransitionTime", ts);
        cJSON_AddStringToObject(c, "reason", "Unschedulable");
        cJSON_AddStringToObject(c, "message", message);
        cJSON_AddItemToArray(conds, c);
        post(r, "PATCH",
             dupf("/api/v1/namespaces/%s/pods/%s/status", sget(r, pod->meta.namespace_),
                  sget(r, pod->meta.name)),
             b, "application/strategic-merge-patch+json", NULL, NULL);
    } else {
        r->st.status_patches_skipped++;
    }
    pr->failed_total++;
    pr->failed_repeats++;
    if (pr->failed_last == 0 || now - pr->failed_last >= r->event_interval) {
        if (event_allowed(r)) {
            post_event(r, pod, NULL, "Warning", "FailedScheduling", "Scheduling", message,
                       pr->failed_repeats);
            pr->failed_last = now;
            pr->failed_repeats = 0;
        }
    } else {
        pthread_mutex_lock(&r->st_mu);
        r->st.events_suppressed++;
        pthread_mutex_unlock(&r->st_mu);
    }
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
    ms_log(r->log, MS_LOG_INFO, "binding failed", "pod", key, "node", sget(r, node), "error", message,
           NULL);
}

/* Preemption: the victim is deleted with a UID precondition (a pod
 * recreated under the same name is not touched); the informer's delete
 * event frees the room. Off the scheduler thread, like every report. */
static ms_rc run_evict(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    runner *r = ctx;
    (void)preemptor;
    (void)node;
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "apiVersion", "v1");
    cJSON_AddStringToObject(b, "kind", "DeleteOptions");
    if (victim->meta.uid && victim->meta.uid[0])
        cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "preconditions"), "uid", victim->meta.uid);
    post_to(r, "DELETE",
            dupf("/api/v1/namespaces/%s/pods/%s", sget(r, victim->meta.namespace_),
                 sget(r, victim->meta.name)),
            b, NULL, NULL, NULL, true);
    return MS_OK;
}

static void run_set_nomination(void *ctx, const ms_pod *pod, ms_str node) {
    runner *r = ctx;
    cJSON *b = cJSON_CreateObject();
    cJSON *st = cJSON_AddObjectToObject(b, "status");
    if (node == MS_STR_NONE) cJSON_AddNullToObject(st, "nominatedNodeName");
    else cJSON_AddStringToObject(st, "nominatedNodeName", sget(r, node));
    post_to(r, "PATCH",
            dupf("/api/v1/namespaces/%s/pods/%s/status", sget(r, pod->meta.namespace_),
                 sget(r, pod->meta.name)),
            b, "application/strategic-merge-patch+json", NULL, NULL, true);
}

/* upstream v1.20's words (newer releases name the preemptor by UID). */
static void on_preempted(void *ctx, const ms_pod *victim, const ms_pod *preemptor, ms_str node) {
    runner *r = ctx;
    char note[1024];
    r->cycle_victims++;
    snprintf(note, sizeof note, "Preempted by %s/%s on node %s", sget(r, preemptor->meta.namespace_),
             sget(r, preemptor->meta.name), sget(r, node));
    if (event_allowed(r)) post_event(r, victim, preemptor, "Normal", "Preempted", "Preempting", note, 0);
}

/* A completed bind: the Scheduled event. */
static void report_bound(runner *r, const ms_pod *pod, const char *node) {
    char key[512], note[1024];
    ms_pod_key(pod, r->in, key, sizeof key);
    ms_log(r->log, MS_LOG_DEBUG, "bound", "pod", key, "node", node, NULL);
    forget_report(r, pod);
    if (!event_allowed(r)) return;
    snprintf(note, sizeof note, "Successfully assigned %s to %s", key, node);
    post_event(r, pod, NULL, "Normal", "Scheduled", "Binding", note, 0);
}

/* ---- the scheduler thread ---------------------------------------------- */

/* Upstream counts a scheduled attempt once its binding succeeded, and a
 * failed binding as an error. */
static void bind_metrics(runner *r, const job *j) {
    double took = mono_now() - j->attempt_start;
    ms_metrics_binding(r->metrics, j->ok ? MS_BIND_OK : j->gone ? MS_BIND_GONE : MS_BIND_FAILED);
    ms_metrics_attempt(r->metrics, j->profile, j->ok ? MS_ATTEMPT_SCHEDULED : MS_ATTEMPT_ERROR, took);
    if (j->ok) {
        /* Failed attempts before this one, as the unschedulable reports
         * counted them (the report is forgotten once bound). */
        const pod_report *pr = ms_map_get(&r->reports, j->pod->meta.uid_hash);
        ms_metrics_pod_scheduled(r->metrics, (pr ? pr->failed_total : 0) + 1);
    }
}

static void drain_completions(runner *r) {
    uint64_t v;
    if (read(r->done_fd, &v, sizeof v) < 0) { /* nothing pending */ }
    job *j = jobq_take_all(&r->done_q);
    double now = wall_now();
    while (j) {
        job *n = j->next;
        r->binds_in_flight--;
        if (j->dropped) {
            /* Shutdown: the pod stays pending on the server. */
            job_free(j);
            j = n;
            continue;
        }
        bind_metrics(r, j);
        if (j->ok) {
            r->st.binds_ok++;
            /* Node name from the body we sent: {"target":{...,"name":NODE}}. */
            const char *node = strstr(j->body, "\"target\":");
            const char *nm = node ? strstr(node, "\"name\":\"") : NULL;
            char nodebuf[256] = "";
            if (nm) {
                nm += 8;
                size_t k = strcspn(nm, "\"");
                if (k >= sizeof nodebuf) k = sizeof nodebuf - 1;
                memcpy(nodebuf, nm, k);
                nodebuf[k] = 0;
            }
            report_bound(r, j->pod, nodebuf);
        } else if (j->gone) {
            r->st.binds_gone++;
        } else {
            r->st.binds_failed++;
        }
        ms_scheduler_bind_done(r->sched, j->pod, j->ok, j->gone, j->ok ? NULL : j->message, now);
        job_free(j);
        j = n;
    }
}

/* Scheduling waits for every informer's first LIST, as upstream waits
 * for its caches: a pod placed before the namespaces or PDBs are known
 * could break an affinity term or a budget. */
static bool all_synced(const runner *r) {
    return r->synced[MS_KIND_POD] && r->synced[MS_KIND_NODE] && r->synced[MS_KIND_NAMESPACE] &&
           r->synced[MS_KIND_PDB];
}

static void log_synced(runner *r, uint8_t kind) {
    static const char *const names[] = {"pods", "nodes", "objects", "namespaces", "poddisruptionbudgets"};
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

static void apply_delta(runner *r, ms_delta *d, double now) {
    if (d->type == MS_DELTA_SYNCED) {
        if (d->kind < sizeof r->synced / sizeof r->synced[0]) r->synced[d->kind] = true;
        log_synced(r, d->kind);
        return;
    }
    if (d->kind == MS_KIND_POD) {
        switch (d->type) {
        case MS_DELTA_ADD: ms_scheduler_pod_add(r->sched, d->pod, now); break;
        case MS_DELTA_UPDATE: ms_scheduler_pod_update(r->sched, d->pod, now); break;
        case MS_DELTA_DELETE:
            ms_scheduler_pod_delete(r->sched, d->pod, now);
            forget_report(r, d->pod);
            break;
        default: break;
        }
    } else if (d->kind == MS_KIND_NODE) {
        switch (d->type) {
        case MS_DELTA_ADD: ms_scheduler_node_add(r->sched, d->node, now); break;
        case MS_DELTA_UPDATE: ms_scheduler_node_update(r->sched, d->node, now); break;
        case MS_DELTA_DELETE: ms_scheduler_node_delete(r->sched, d->node->meta.name, now); break;
        default: break;
        }
    } else if (d->kind == MS_KIND_NAMESPACE) {
        switch (d->type) {
        case MS_DELTA_ADD:
        case MS_DELTA_UPDATE: ms_scheduler_namespace_add(r->sched, d->ns, now); break;
        case MS_DELTA_DELETE: ms_scheduler_namespace_delete(r->sched, d->ns->meta.name, now); break;
        default: break;
        }
        if (ms_log_enabled(r->log, MS_LOG_DEBUG)) {
            char nlabels[16];
            snprintf(nlabels, sizeof nlabels, "%u", d->ns->meta.labels.n);
            ms_log(r->log, MS_LOG_DEBUG, "namespace", "event", ms_delta_type_name((ms_delta_type)d->type),
                   "name", sget(r, d->ns->meta.name), "labels", nlabels, NULL);
        }
    } else if (d->kind == MS_KIND_PDB) {
        switch (d->type) {
        case MS_DELTA_ADD: ms_scheduler_pdb_add(r->sched, d->pdb, now); break;
        case MS_DELTA_UPDATE: ms_scheduler_pdb_update(r->sched, d->pdb, now); break;
        case MS_DELTA_DELETE:
            ms_scheduler_pdb_delete(r->sched, d->pdb->meta.namespace_, d->pdb->meta.name, now);
            break;
        default: break;
        }
        if (ms_log_enabled(r->log, MS_LOG_DEBUG)) {
            char count[16];
            snprintf(count, sizeof count, "%u", ms_scheduler_pdb_count(r->sched));
            ms_log(r->log, MS_LOG_DEBUG, "pdb", "event", ms_delta_type_name((ms_delta_type)d->type),
                   "namespace", sget(r, d->pdb->meta.namespace_), "name", sget(r, d->pdb->meta.name),
                   "pdbs", count, NULL);
        }
    }
}

static size_t drain_deltas(runner *r) {
    ms_delta batch[256];
    size_t total = 0, n;
    while ((n = ms_delta_queue_pop(r->deltas, batch, 256, 0)) > 0) {
        double now = wall_now();
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
    static const char *const kinds[] = {"reloaded", "reload refused", "disabled"};
    static const struct {
        const char *type, *reason, *action;
    } events[] = {
        {"Normal", "PolicyReloaded", "Reload"},
        {"Warning", "PolicyReloadFailed", "Reload"},
        {"Warning", "PolicyDisabled", "Disable"},
    };
    unsigned k = ev->kind <= MS_POLICY_DISABLED ? (unsigned)ev->kind : 0;
    char latency[32];
    snprintf(latency, sizeof latency, "%.3f", ev->latency);
    ms_log(r->log, ev->kind == MS_POLICY_RELOADED ? MS_LOG_INFO : MS_LOG_ERROR, kinds[k], "profile",
           ev->profile, "plugin", ev->plugin, "file", ev->file, "message", ev->message,
           ev->kind == MS_POLICY_RELOADED ? "latency" : NULL, latency, NULL);
    if (!r->self.name[0] || !event_allowed(r)) return;
    char note[1024];
    snprintf(note, sizeof note, "%s (profile %s, file %s): %s", ev->plugin ? ev->plugin : "",
             ev->profile ? ev->profile : "", ev->file ? ev->file : "", ev->message ? ev->message : "");
    event_object obj = {r->self.api_version, r->self.kind, r->self.ns, r->self.name, r->self.uid};
    post_event_about(r, &obj, NULL, events[k].type, events[k].reason, events[k].action, note, 0);
}

/* On the watcher thread: wake the loop. */
static void policy_ready(void *ctx) {
    runner *r = ctx;
    uint64_t one = 1;
    if (write(r->policy_fd, &one, sizeof one) < 0) {
        /* the counter is full: the loop is awake anyway */
    }
}

static ms_rc setup_policies(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    if (o->npolicy_files == 0 && !ms_config_has_policies(&r->cfg)) return MS_OK;
    r->policy_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (r->policy_fd < 0) return ms_error_set(err, MS_EIO, "eventfd: %s", strerror(errno));
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

/* /metrics, /healthz, /readyz. An address the user chose must work; the
 * default one may be taken (another scheduler on the host): then a
 * warning, and the scheduler runs without. */
static ms_rc setup_metrics(runner *r, ms_error *err) {
    const char *names[64];
    uint32_t np = r->cfg.nprofiles < 64 ? r->cfg.nprofiles : 64;
    for (uint32_t i = 0; i < np; i++) names[i] = r->cfg.profiles[i].scheduler_name;
    r->metrics = ms_metrics_new(names, np);
    uint32_t npol = r->policies ? ms_policy_set_count(r->policies) : 0;
    if (npol) r->policy_snap = calloc(npol, sizeof *r->policy_snap);
    if (!r->metrics || (npol && !r->policy_snap)) return ms_error_set(err, MS_ENOMEM, "out of memory");

    const char *addr = r->o->metrics_bind_address;
    bool chosen = addr != NULL;
    if (!addr && r->cfg.metrics_bind_address[0]) addr = r->cfg.metrics_bind_address, chosen = true;
    if (!addr && r->cfg.healthz_bind_address[0]) addr = r->cfg.healthz_bind_address, chosen = true;
    if (!addr) addr = MS_RUN_DEFAULT_METRICS_ADDRESS;
    if (r->cfg.healthz_bind_address[0] && r->cfg.metrics_bind_address[0] &&
        strcmp(r->cfg.healthz_bind_address, r->cfg.metrics_bind_address) != 0)
        ms_log(r->log, MS_LOG_WARN, "healthzBindAddress differs from metricsBindAddress; serving both on one",
               "address", addr, NULL);
    if (ms_http_address_disabled(addr)) return MS_OK;
    ms_error e = {0};
    ms_rc rc = ms_http_server_start(addr, ms_metrics_serve, r->metrics, &r->http, &e);
    if (rc != MS_OK) {
        if (chosen || rc == MS_ENOMEM) {
            if (err) *err = e;
            return rc;
        }
        ms_log(r->log, MS_LOG_WARN, "metrics server not started", "error", e.msg, NULL);
        return MS_OK;
    }
    char port[8];
    snprintf(port, sizeof port, "%u", ms_http_server_port(r->http));
    ms_log(r->log, MS_LOG_INFO, "serving metrics and health", "address", addr, "port", port, NULL);
    return MS_OK;
}

/* After the informers, as upstream: a standby's caches are warm when it
 * takes over. */
static ms_rc setup_leader_election(runner *r, ms_error *err) {
    bool on = r->o->leader_elect ? r->o->leader_elect > 0 : r->cfg.leader_election.leader_elect;
    if (!on) {
        ms_log(r->log, MS_LOG_INFO, "leader election disabled; acting as leader", NULL);
        return MS_OK;
    }
    ms_kube_client_options co = {.config = &r->kc, .qps = r->cfg.qps, .burst = r->cfg.burst, .log = r->log};
    ms_leader_elector_options eo = {.config = &r->cfg.leader_election, .client = &co, .log = r->log,
                                    .metrics = r->metrics, .post_events = true};
    return ms_leader_elector_start(&eo, &r->elector, err);
}

static bool leading(const runner *r) { return !r->elector || ms_leader_elector_leading(r->elector); }

static ms_rc setup(runner *r, ms_error *err) {
    const ms_run_options *o = r->o;
    ms_rc rc = o->config_file ? ms_config_load_file(&r->cfg, o->config_file, warn_config, r, err)
                              : ms_config_default(&r->cfg);
    if (rc != MS_OK) return rc;
    if (o->scheduler_name && r->cfg.nprofiles > 0) {
        snprintf(r->cfg.profiles[0].scheduler_name, sizeof r->cfg.profiles[0].scheduler_name, "%s",
                 o->scheduler_name);
    }

    ms_kubeconfig *kc = &r->kc;
    if (o->in_cluster) rc = ms_kubeconfig_in_cluster(kc, NULL, err);
    else rc = ms_kubeconfig_load_default(kc, o->kubeconfig ? o->kubeconfig : r->cfg.kubeconfig, NULL, err);
    if (rc != MS_OK) return rc;
    ms_kube_client_options co = {.config = kc, .qps = r->cfg.qps, .burst = r->cfg.burst,
                                 .user_agent = "moonsched/0.1 (scheduler)", .log = r->log};
    rc = ms_kube_client_new(&co, &r->client, err);
    if (rc == MS_OK) {
        co.user_agent = "moonsched/0.1 (events)";
        rc = ms_kube_client_new(&co, &r->poster_client, err);
    }
    if (rc != MS_OK) return rc;

    r->in = ms_interner_new();
    if (!r->in) return ms_error_set(err, MS_ENOMEM, "out of memory");
    if ((rc = setup_policies(r, err)) != MS_OK) return rc;
    setup_self(r);
    if ((rc = setup_metrics(r, err)) != MS_OK) return rc;
    ms_scheduler_options so = {
        .config = &r->cfg,
        .in = r->in,
        .binder = {r, run_bind},
        .evictor = {r, run_evict, run_set_nomination},
        .reporter = {.ctx = r, .unschedulable = on_unschedulable, .bind_failed = on_bind_failed,
                     .preempted = on_preempted, .error = on_cycle_error, .post_filter = on_post_filter},
        .seed = r->cfg.has_seed ? r->cfg.seed : (uint64_t)time(NULL),
        .profile_out_of_tree = r->policies ? ms_policy_set_profile_plugins(r->policies) : NULL,
        .n_profile_out_of_tree = r->policies ? ms_policy_set_profile_counts(r->policies) : NULL,
    };
    if ((rc = ms_scheduler_new(&so, &r->sched, err)) != MS_OK) return rc;
    if (r->policies && (rc = ms_policy_set_attach(r->policies, r->sched, err)) != MS_OK) return rc;
    r->event_interval = o->event_interval > 0 ? o->event_interval : 30;
    double eq = o->event_qps > 0 ? o->event_qps : 50;
    r->event_bucket = ms_rate_limiter_new(eq, (int32_t)(eq * 4), NULL, NULL);
    r->deltas = ms_delta_queue_new();
    r->done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!r->event_bucket || !r->deltas || r->done_fd < 0)
        return ms_error_set(err, MS_ENOMEM, "out of memory or file descriptors");

    uint32_t nb = o->bind_workers ? o->bind_workers : DEFAULT_BINDS_IN_FLIGHT;
    if (nb > MAX_BINDS_IN_FLIGHT) nb = MAX_BINDS_IN_FLIGHT;
    r->max_binds = 2 * nb;
    if ((rc = ms_kube_async_new(r->client, nb, &r->binder, err)) != MS_OK) return rc;
    if (pthread_create(&r->poster, NULL, poster_main, r) != 0)
        return ms_error_set(err, MS_ENOMEM, "cannot start the event poster");
    r->poster_started = true;

    const ms_decoder *dec = ms_scheduler_decoder(r->sched);
    /* LIST pages of 100: a page is parsed whole (its text and its JSON
     * tree, some 10 KiB per pod), and 500 pods' worth of that is most of
     * the start-up peak; five times the requests cost nothing measurable. */
    ms_informer_options io = {.client = r->client, .resource = &ms_informer_nodes, .decode_ctx = dec,
                              .queue = r->deltas, .log = r->log, .page_size = 100};
    if ((rc = ms_informer_start(&io, &r->node_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pods;
    if ((rc = ms_informer_start(&io, &r->pod_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_namespaces;
    if ((rc = ms_informer_start(&io, &r->ns_inf, err)) != MS_OK) return rc;
    io.resource = &ms_informer_pdbs;
    if ((rc = ms_informer_start(&io, &r->pdb_inf, err)) != MS_OK) return rc;
    return setup_leader_election(r, err);
}

static void teardown(runner *r) {
    /* Binds in flight are done: release the lease at once so that a
     * standby takes over (a lost lease is not ours to release). */
    ms_leader_elector_stop(r->elector, true);
    r->elector = NULL;
    /* First: the HTTP thread reads the metrics. */
    ms_http_server_stop(r->http);
    if (r->pod_inf) ms_informer_stop(r->pod_inf);
    if (r->node_inf) ms_informer_stop(r->node_inf);
    if (r->ns_inf) ms_informer_stop(r->ns_inf);
    if (r->pdb_inf) ms_informer_stop(r->pdb_inf);
    /* Binds not answered by now are dropped: the pods stay pending on the
     * server and the next scheduler takes them. */
    ms_kube_async_free(r->binder, 0);
    if (r->sched) drain_completions(r);
    jobq_close(&r->post_q);
    if (r->poster_started) pthread_join(r->poster, NULL);
    if (r->deltas) {
        ms_delta_queue_close(r->deltas);
        ms_delta d[64];
        size_t n;
        while ((n = ms_delta_queue_pop(r->deltas, d, 64, 0)) > 0)
            for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
        ms_delta_queue_free(r->deltas);
    }
    if (r->sched) ms_scheduler_free(r->sched);
    ms_policy_set_free(r->policies);
    if (r->policy_fd >= 0) close(r->policy_fd);
    if (r->in) ms_interner_free(r->in);
    if (r->client) ms_kube_client_free(r->client);
    if (r->poster_client) ms_kube_client_free(r->poster_client);
    ms_kubeconfig_free(&r->kc);
    if (r->event_bucket) ms_rate_limiter_free(r->event_bucket);
    if (r->done_fd >= 0) close(r->done_fd);
    size_t it = 0;
    uint64_t k;
    void *v;
    while (ms_map_next(&r->reports, &it, &k, &v)) free(v);
    ms_map_free(&r->reports);
    ms_config_free(&r->cfg);
    jobq_destroy(&r->done_q);
    jobq_destroy(&r->post_q);
    pthread_mutex_destroy(&r->st_mu);
    ms_metrics_free(r->metrics);
    free(r->policy_snap);
}

static void log_progress(runner *r, const char *msg) {
    char a[24], b[24], c[24], d[24], e[24], f[24];
    snprintf(a, sizeof a, "%llu", (unsigned long long)r->st.binds_ok);
    snprintf(b, sizeof b, "%llu", (unsigned long long)(r->st.binds_failed + r->st.binds_gone));
    snprintf(c, sizeof c, "%llu", (unsigned long long)r->st.unschedulable);
    ms_queue *q = ms_scheduler_queue(r->sched);
    snprintf(d, sizeof d, "%u", ms_queue_len_active(q) + ms_queue_len_backoff(q));
    snprintf(e, sizeof e, "%u", ms_queue_len_unschedulable(q));
    pthread_mutex_lock(&r->st_mu);
    snprintf(f, sizeof f, "%llu", (unsigned long long)r->st.events_posted);
    pthread_mutex_unlock(&r->st_mu);
    ms_log(r->log, MS_LOG_INFO, msg, "bound", a, "bind_failures", b, "unschedulable_reports", c,
           "pending", d, "unschedulable_pods", e, "events", f, NULL);
}

ms_rc ms_run(const ms_run_options *o, ms_run_stats *stats, ms_error *err) {
    runner rr;
    runner *r = &rr;
    memset(r, 0, sizeof *r);
    r->o = o;
    r->log = o->log ? o->log : &ms_log_default;
    r->done_fd = -1;
    r->policy_fd = -1;
    jobq_init(&r->done_q);
    jobq_init(&r->post_q);
    ms_map_init(&r->reports);
    pthread_mutex_init(&r->st_mu, NULL);

    /* Signals are blocked before any thread starts, so that every thread
     * inherits the mask and only the signalfd sees them. */
    int sfd = -1;
    sigset_t mask, old;
    sigemptyset(&mask);
    if (o->handle_signals) {
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &mask, &old);
        sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    }

    ms_rc rc = setup(r, err);
    if (rc != MS_OK) goto out;
    ms_log(r->log, MS_LOG_INFO, "started", "server", ms_kube_client_server(r->client), "profile",
           r->cfg.nprofiles ? r->cfg.profiles[0].scheduler_name : "", NULL);

    double tick = o->tick_interval > 0 ? o->tick_interval : 0.2;
    double next_tick = mono_now() + tick, next_progress = mono_now() + 10;
    bool stopping = false, more = false;
    double stop_deadline = 0;
    uint64_t last_bound = 0;
    for (;;) {
        /* poll() skips entries whose fd is negative. */
        struct pollfd fds[5] = {
            {.fd = ms_delta_queue_fd(r->deltas), .events = POLLIN},
            {.fd = r->done_fd, .events = POLLIN},
            {.fd = sfd, .events = POLLIN},
            {.fd = r->policy_fd, .events = POLLIN},
            {.fd = r->elector ? ms_leader_elector_fd(r->elector) : -1, .events = POLLIN},
        };
        double now_m = mono_now();
        int timeout_ms = more ? 0 : (int)((next_tick - now_m) * 1000) + 1;
        if (timeout_ms < 0) timeout_ms = 0;
        if (poll(fds, 5, timeout_ms) < 0 && errno != EINTR) {
            rc = ms_error_set(err, MS_EIO, "poll: %s", strerror(errno));
            break;
        }
        if (sfd >= 0 && (fds[2].revents & POLLIN)) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) > 0 && !stopping) {
                stopping = true;
                stop_deadline = mono_now() + (o->shutdown_timeout > 0 ? o->shutdown_timeout : 10);
                ms_log(r->log, MS_LOG_INFO, "stopping: finishing binds in flight", "signal",
                       strsignal((int)si.ssi_signo), NULL);
            }
        }
        if (fds[1].revents & POLLIN) drain_completions(r);
        if (fds[3].revents & POLLIN) {
            uint64_t v;
            if (read(r->policy_fd, &v, sizeof v) < 0) v = 0;
        }
        if (fds[4].revents & POLLIN) {
            uint64_t v;
            if (read(fds[4].fd, &v, sizeof v) < 0) v = 0;
        }
        if (r->elector && ms_leader_elector_lost(r->elector)) {
            /* upstream's kube-scheduler exits here; another replica may
             * already be binding, so no new binds start */
            rc = ms_error_set(err, MS_ESTATE, "leaderelection lost");
            break;
        }
        drain_deltas(r);
        /* Between cycles: a reloaded policy is swapped in here. */
        if (r->policies) ms_policy_set_poll(r->policies, wall_now());
        now_m = mono_now();
        ms_metrics_heartbeat(r->metrics, now_m);
        if (now_m >= next_tick) {
            ms_scheduler_tick(r->sched, wall_now());
            metrics_snapshot(r);
            next_tick = now_m + tick;
        }
        if (stopping) {
            if (r->binds_in_flight == 0 || now_m >= stop_deadline) break;
            more = false;
            continue;
        }
        more = false;
        if (all_synced(r) && leading(r)) {
            /* A bounded batch, then back to the deltas and completions. */
            double until = mono_now() + 0.01;
            for (int i = 0; i < 256 && r->binds_in_flight < r->max_binds; i++) {
                if (!schedule_one_measured(r)) break;
                more = true;
                if ((i & 15) == 15 && mono_now() >= until) break;
            }
        }
        if (now_m >= next_progress) {
            if (!all_synced(r))
                /* e.g. a role without list/watch on namespaces (1.20's
                 * system:kube-scheduler): the informer logs the 403s */
                ms_log(r->log, MS_LOG_WARN, "waiting for informers to sync; not scheduling yet", "pods",
                       r->synced[MS_KIND_POD] ? "synced" : "waiting", "nodes",
                       r->synced[MS_KIND_NODE] ? "synced" : "waiting", "namespaces",
                       r->synced[MS_KIND_NAMESPACE] ? "synced" : "waiting", "poddisruptionbudgets",
                       r->synced[MS_KIND_PDB] ? "synced" : "waiting", NULL);
            if (r->st.binds_ok != last_bound) log_progress(r, "progress");
            last_bound = r->st.binds_ok;
            next_progress = now_m + 10;
        }
    }
    if (rc == MS_OK) {
        if (r->binds_in_flight)
            ms_log(r->log, MS_LOG_WARN, "binds still in flight at shutdown are abandoned", NULL);
        log_progress(r, "stopped");
    }

out:
    teardown(r);
    if (stats) *stats = r->st;
    if (sfd >= 0) close(sfd);
    if (o->handle_signals) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
