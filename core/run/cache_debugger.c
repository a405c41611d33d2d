/* The cache debugger: see run/cache_debugger.h. */
#include "run/cache_debugger.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/buf.h"
#include "base/job_queue.h"

/* ---- the dumper (scheduler thread) ----------------------------------------- */

static void put_resources(ms_buf *b, const ms_resources *r) {
    ms_buf_printf(b, "cpu=%lldm memory=%lld pods=%lld", (long long)r->v[MS_RES_CPU],
                  (long long)r->v[MS_RES_MEMORY], (long long)r->v[MS_RES_PODS]);
}

static void put_pod(ms_buf *b, const ms_interner *in, const ms_pod *p) {
    char key[512];
    ms_pod_key(p, in, key, sizeof key);
    ms_buf_printf(b, "%s%s", b->len ? "," : "", key);
}

static void dump_node(const ms_logger *log, const ms_interner *in, const ms_cache *c, const ms_node_info *ni) {
    ms_buf alloc = {0}, req = {0}, pods = {0};
    if (ni->node) put_resources(&alloc, &ni->node->allocatable);
    put_resources(&req, &ni->requested);
    for (uint32_t i = 0; i < ni->npods; i++) {
        put_pod(&pods, in, ni->pods[i]);
        if (ms_cache_is_assumed(c, ni->pods[i])) ms_buf_puts(&pods, "(assumed)");
    }
    char n[16];
    snprintf(n, sizeof n, "%u", ni->npods);
    ms_log(log, MS_LOG_INFO, "cache dumper: node", "node", ms_str_get(in, ni->name), "allocatable",
           alloc.len ? alloc.data : "", "requested", req.len ? req.data : "", "npods", n, "pods",
           pods.len ? pods.data : "", NULL);
    ms_buf_free(&alloc);
    ms_buf_free(&req);
    ms_buf_free(&pods);
}

enum { QUEUES = 5 };   /* active, backoff, unschedulable, gated, in flight */

typedef struct pending_walk {
    const ms_interner *in;
    ms_buf pods[QUEUES];
    uint32_t n[QUEUES];
} pending_walk;

static void add_pending(void *ctx, const ms_queued_pod *qp) {
    pending_walk *w = ctx;
    int i = qp->gated                         ? 3
            : qp->where == MS_QW_ACTIVE        ? 0
            : qp->where == MS_QW_BACKOFF       ? 1
            : qp->where == MS_QW_UNSCHEDULABLE ? 2
                                               : 4;
    w->n[i]++;
    put_pod(&w->pods[i], w->in, qp->pod);
}

void ms_cache_dump(const ms_logger *log, const ms_interner *in, const ms_cache *c, ms_queue *q) {
    uint32_t n = ms_cache_node_count(c);
    char nodes[16], pods[16];
    snprintf(nodes, sizeof nodes, "%u", n);
    snprintf(pods, sizeof pods, "%u", ms_cache_pod_count(c));
    ms_log(log, MS_LOG_INFO, "cache dumper: dump of the cache and the scheduling queue", "nodes", nodes, "pods",
           pods, NULL);
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = ms_cache_node_at(c, i);
        if (ni) dump_node(log, in, c, ni);
    }
    static const char *const names[QUEUES] = {"active", "backoff", "unschedulable", "gated", "in flight"};
    pending_walk w = {.in = in};
    ms_queue_each(q, add_pending, &w);
    for (int i = 0; i < QUEUES; i++) {
        char count[16];
        snprintf(count, sizeof count, "%u", w.n[i]);
        ms_log(log, MS_LOG_INFO, "cache dumper: pending pods", "queue", names[i], "npods", count, "pods",
               w.pods[i].len ? w.pods[i].data : "", NULL);
        ms_buf_free(&w.pods[i]);
    }
}

/* ---- the comparer (its own thread) ---------------------------------------- */

typedef struct compare_job {
    ms_job link;                   /* first: the queue's */
    ms_cache_view cached;
} compare_job;

struct ms_cache_debugger {
    ms_kube_client *client;
    const ms_decoder *decoder;
    ms_interner *in;
    const ms_logger *log;
    ms_str *names;
    uint32_t nnames;
    ms_job_queue q;
    ms_kube_cancel *cancel;
    pthread_t thread;
};

static void job_free(ms_job *j) {
    compare_job *c = (compare_job *)j;
    ms_cache_view_free(&c->cached);
    free(c);
}

static bool ours(const ms_cache_debugger *d, ms_str scheduler_name) {
    for (uint32_t i = 0; i < d->nnames; i++)
        if (d->names[i] == scheduler_name) return true;
    return false;
}

/* The items of a LIST into the view: pods bound, or pending for one of
 * the profiles; nodes all. */
static ms_rc add_items(ms_cache_debugger *d, const cJSON *items, bool pods, ms_cache_view *v, ms_error *err) {
    const cJSON *it;
    cJSON_ArrayForEach(it, items) {
        ms_error e = {0};
        int r = 0;
        if (pods) {
            ms_pod *p = NULL;
            if (ms_pod_decode(d->decoder, it, &p, &e) != MS_OK) {
                ms_log(d->log, MS_LOG_WARN, "cache comparer: a pod does not decode", "error", e.msg, NULL);
                continue;
            }
            if (p->node_name != MS_STR_NONE || ours(d, p->scheduler_name))
                r = ms_cache_view_add_pod(v, p, p->node_name);
            ms_pod_unref(p);
        } else {
            ms_node *n = NULL;
            if (ms_node_decode(d->decoder, it, &n, &e) != MS_OK) {
                ms_log(d->log, MS_LOG_WARN, "cache comparer: a node does not decode", "error", e.msg, NULL);
                continue;
            }
            r = ms_cache_view_add_node(v, n);
            ms_node_unref(n);
        }
        if (r != 0) return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    return MS_OK;
}

/* One LIST, whole (no pages: this is a debugging aid, not a hot path). */
static ms_rc list(ms_cache_debugger *d, const char *path, bool pods, ms_cache_view *v, ms_error *err) {
    ms_kube_request rq = {.method = "GET", .path = path, .cancel = d->cancel};
    ms_kube_response resp;
    ms_rc rc = ms_kube_do(d->client, &rq, &resp, err);
    if (rc == MS_OK && resp.status != 200) {
        char msg[256];
        ms_kube_status_message(&resp, msg, sizeof msg);
        rc = ms_error_set(err, MS_EIO, "GET %s: %ld: %s", path, resp.status, msg);
    }
    cJSON *root = rc == MS_OK ? cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len) : NULL;
    if (rc == MS_OK && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "items")))
        rc = ms_error_set(err, MS_EINVAL, "GET %s: not a list", path);
    if (rc == MS_OK) rc = add_items(d, cJSON_GetObjectItemCaseSensitive(root, "items"), pods, v, err);
    cJSON_Delete(root);
    ms_kube_response_free(&resp);
    return rc;
}

static void log_diff(void *ctx, const ms_cache_diff *df) {
    const ms_cache_debugger *d = ctx;
    const char *kind = ms_cache_diff_kind_name(df->kind);
    if (df->kind <= MS_CACHE_NODE_DIFFERENT) {
        ms_log(d->log, MS_LOG_WARN, "cache comparer: node differs", "node", ms_str_get(d->in, df->name),
               "difference", kind, NULL);
        return;
    }
    char key[512];
    snprintf(key, sizeof key, "%s/%s", ms_str_get(d->in, df->namespace_), ms_str_get(d->in, df->name));
    const char *cached = df->cached_node ? ms_str_get(d->in, df->cached_node) : "";
    const char *actual = df->actual_node ? ms_str_get(d->in, df->actual_node) : "";
    ms_log(d->log, MS_LOG_WARN, "cache comparer: pod differs", "pod", key, "difference", kind, "cache_node",
           cached, "api_node", actual, NULL);
}

static void compare(ms_cache_debugger *d, ms_cache_view *cached) {
    ms_cache_view actual = {0};
    ms_error err = {0};
    ms_rc rc = list(d, "/api/v1/nodes", false, &actual, &err);
    if (rc == MS_OK)
        rc = list(d, "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed", true,
                  &actual, &err);
    if (rc != MS_OK) {
        if (rc != MS_ESTATE)
            ms_log(d->log, MS_LOG_WARN, "cache comparer: cannot list", "error", err.msg, NULL);
        ms_cache_view_free(&actual);
        return;
    }
    char nodes[16], pods[16], diffs[16];
    snprintf(nodes, sizeof nodes, "%u", actual.nnodes);
    snprintf(pods, sizeof pods, "%u", actual.npods);
    snprintf(diffs, sizeof diffs, "%u", ms_cache_compare(cached, &actual, log_diff, d));
    ms_log(d->log, MS_LOG_INFO, "cache comparer", "nodes", nodes, "pods", pods, "differences", diffs, NULL);
    ms_cache_view_free(&actual);
}

static void *debugger_main(void *arg) {
    ms_cache_debugger *d = arg;
    ms_job *j;
    while ((j = ms_job_queue_pop_wait(&d->q))) {
        compare(d, &((compare_job *)j)->cached);
        job_free(j);
    }
    return NULL;
}

ms_rc ms_cache_debugger_start(const ms_cache_debugger_options *o, ms_cache_debugger **out, ms_error *err) {
    *out = NULL;
    ms_cache_debugger *d = calloc(1, sizeof *d);
    if (!d) return ms_error_set(err, MS_ENOMEM, "out of memory");
    *d = (ms_cache_debugger){.client = o->client, .decoder = o->decoder, .in = o->in,
                             .log = o->log ? o->log : &ms_log_default, .nnames = o->nscheduler_names};
    d->names = calloc(d->nnames ? d->nnames : 1, sizeof *d->names);
    d->cancel = ms_kube_cancel_new();
    if (!d->names || !d->cancel) {
        free(d->names);
        ms_kube_cancel_free(d->cancel);
        free(d);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    if (d->nnames) memcpy(d->names, o->scheduler_names, d->nnames * sizeof *d->names);
    ms_job_queue_init(&d->q);
    if (pthread_create(&d->thread, NULL, debugger_main, d) != 0) {
        ms_job_queue_destroy(&d->q, job_free);
        ms_kube_cancel_free(d->cancel);
        free(d->names);
        free(d);
        return ms_error_set(err, MS_EIO, "cannot start the cache comparer's thread");
    }
    *out = d;
    return MS_OK;
}

void ms_cache_debugger_compare(ms_cache_debugger *d, ms_cache_view *cached) {
    compare_job *j = calloc(1, sizeof *j);
    if (!j) {
        ms_log(d->log, MS_LOG_WARN, "cache comparer: out of memory", NULL);
        ms_cache_view_free(cached);
        return;
    }
    j->cached = *cached;
    memset(cached, 0, sizeof *cached);
    /* One at a time is enough: a request queued behind one still waiting
     * replaces it (its view is older). */
    ms_job *stale = ms_job_queue_take_all(&d->q);
    while (stale) {
        ms_job *next = stale->next;
        job_free(stale);
        stale = next;
    }
    ms_job_queue_push(&d->q, &j->link, false);
}

void ms_cache_debugger_stop(ms_cache_debugger *d) {
    if (!d) return;
    ms_kube_cancel_fire(d->cancel);
    ms_job_queue_close(&d->q);
    pthread_join(d->thread, NULL);
    ms_job_queue_destroy(&d->q, job_free);
    ms_kube_cancel_free(d->cancel);
    free(d->names);
    free(d);
}
