/* The report poster. See run/poster.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/job_queue.h"
#include "base/mailbox.h"
#include "run/poster.h"

enum { DEFAULT_BACKLOG = 20000 };

typedef enum report_kind { REPORT_STATUS, REPORT_DELETE, REPORT_EVENT } report_kind;

typedef struct report {
    ms_job link;                   /* first: the queue's */
    report_kind kind;
    const char *method, *content_type;
    ms_event_post req;             /* path and body (and an Event's fallback) */
    struct report *then;           /* sent next only if this one is accepted; NULL: none */
    uint64_t victim;               /* ms_poster_request.victim of this one or its then */
} report;

struct ms_poster {
    ms_kube_client *client;
    ms_event_recorder *events;
    ms_api_metrics *metrics;
    const ms_logger *log;
    uint32_t backlog;
    ms_job_queue q;
    /* The reports of failed victim deletions, handed back as they are
     * (nothing to allocate when it fails). */
    ms_mailbox failed;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;            /* stats: the poster thread and callers update them */
    ms_poster_stats st;
};

static void report_free(ms_job *j) {
    report *r = (report *)j;
    if (r->then) report_free(&r->then->link);
    ms_event_post_free(&r->req);
    free(r);
}

static void count_suppressed(ms_poster *p) {
    pthread_mutex_lock(&p->mu);
    p->st.events_suppressed++;
    pthread_mutex_unlock(&p->mu);
}

void ms_poster_suppressed(ms_poster *p) { count_suppressed(p); }

void ms_poster_stats_get(ms_poster *p, ms_poster_stats *out) {
    pthread_mutex_lock(&p->mu);
    *out = p->st;
    pthread_mutex_unlock(&p->mu);
}

static ms_rc send_report(ms_poster *p, const report *r, ms_kube_response *resp, ms_error *err) {
    if (r->kind == REPORT_EVENT) {
        ms_event_send_options o = {.answered = ms_api_metrics_answered, .ctx = p->metrics};
        return ms_event_recorder_send(p->events, p->client, &r->req, &o, resp, err);
    }
    ms_kube_request rq = {.method = r->method, .path = r->req.path, .body = r->req.body,
                          .body_len = strlen(r->req.body), .content_type = r->content_type};
    ms_rc rc = ms_kube_do(p->client, &rq, resp, err);
    ms_api_metrics_request(p->metrics, rc == MS_OK ? resp->status : 0);
    return rc;
}

static void log_failure(ms_poster *p, const report *r, ms_rc rc, const ms_kube_response *resp,
                        const ms_error *err) {
    char msg[200] = "", st[16];
    if (rc == MS_OK) ms_kube_status_message(resp, msg, sizeof msg);
    snprintf(st, sizeof st, "%ld", resp->status);
    static const char *const what[] = {"status not patched", "victim not deleted", "event not posted"};
    /* A pod deleted meanwhile is not worth a warning. */
    ms_log(p->log, resp->status == 404 ? MS_LOG_DEBUG : MS_LOG_WARN, what[r->kind], "path", r->req.path,
           "status", st, "error", rc == MS_OK ? msg : err->msg, NULL);
}

/* Sends one report and counts it; whether the server accepted it, and
 * its status (0: no answer). */
static bool post(ms_poster *p, const report *r, long *status) {
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = send_report(p, r, &resp, &err);
    bool ok = rc == MS_OK && resp.status >= 200 && resp.status < 300;
    *status = rc == MS_OK ? resp.status : 0;
    if (!ok) log_failure(p, r, rc, &resp, &err);
    pthread_mutex_lock(&p->mu);
    if (r->kind == REPORT_EVENT) {
        if (ok) p->st.events_posted++;
        else p->st.events_failed++;
    } else if (ok && r->kind == REPORT_STATUS) {
        p->st.status_patches++;
    }
    pthread_mutex_unlock(&p->mu);
    ms_kube_response_free(&resp);
    return ok;
}

static void *poster_main(void *arg) {
    ms_poster *p = arg;
    ms_job *j;
    while ((j = ms_job_queue_pop_wait(&p->q))) {
        const report *r = (report *)j;
        long status;
        bool ok = post(p, r, &status);
        for (; r->then; r = r->then) {
            if (!ok) {
                ms_log(p->log, MS_LOG_WARN, "request not sent: the one it depends on failed", "path",
                       r->then->req.path, "after", r->req.path, NULL);
                break;
            }
            ok = post(p, r->then, &status);
        }
        /* Its mark would keep the victim from being chosen again while
         * nothing deletes it. */
        if (!ok && ((report *)j)->victim && status != 404 && status != 409) ms_mailbox_post(&p->failed, j, false);
        else report_free(j);
    }
    return NULL;
}

ms_rc ms_poster_start(const ms_poster_options *o, ms_poster **out, ms_error *err) {
    *out = NULL;
    ms_poster *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->failed.fd = -1;   /* destroyed on every path, made below */
    p->client = o->client;
    p->events = o->events;
    p->metrics = o->metrics;
    p->log = o->log ? o->log : &ms_log_default;
    p->backlog = o->backlog ? o->backlog : DEFAULT_BACKLOG;
    ms_job_queue_init(&p->q);
    pthread_mutex_init(&p->mu, NULL);
    if (ms_mailbox_init(&p->failed) != 0) {
        ms_poster_free(p);
        return ms_error_set(err, MS_EIO, "cannot make the poster's eventfd");
    }
    if (pthread_create(&p->thread, NULL, poster_main, p) != 0) {
        ms_poster_free(p);
        return ms_error_set(err, MS_ENOMEM, "cannot start the event poster");
    }
    p->started = true;
    *out = p;
    return MS_OK;
}

void ms_poster_stop(ms_poster *p) {
    ms_job_queue_close(&p->q);
    if (p->started) pthread_join(p->thread, NULL);
    p->started = false;
}

void ms_poster_free(ms_poster *p) {
    if (!p) return;
    ms_poster_stop(p);
    ms_job_queue_destroy(&p->q, report_free);
    ms_mailbox_destroy(&p->failed, report_free);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* A report of req (taking its strings), NULL when out of memory or
 * without path or body. */
static report *report_new(report_kind kind, const char *method, const char *content_type, ms_event_post *req) {
    report *r = req->path && req->body ? calloc(1, sizeof *r) : NULL;
    if (!r) {
        ms_event_post_free(req);
        return NULL;
    }
    r->kind = kind;
    r->method = method;
    r->content_type = content_type;
    r->req = *req;
    memset(req, 0, sizeof *req);
    return r;
}

/* Takes r (NULL: counted as suppressed); whether it was queued. */
static bool queue_report(ms_poster *p, report *r, bool urgent) {
    if (r && !urgent && ms_job_queue_len(&p->q) >= p->backlog) {
        report_free(&r->link);
        r = NULL;
    }
    /* Reports are best effort: the scheduler's own work goes on. */
    if (!r) count_suppressed(p);
    else ms_job_queue_push(&p->q, &r->link, urgent);
    return r != NULL;
}

static report *request_report(const ms_poster_request *rq) {
    ms_event_post req = {.path = rq->path, .body = rq->body ? cJSON_PrintUnformatted(rq->body) : NULL};
    cJSON_Delete(rq->body);
    report *r = report_new(strcmp(rq->method, "DELETE") == 0 ? REPORT_DELETE : REPORT_STATUS, rq->method,
                           rq->content_type, &req);
    if (r) r->victim = rq->victim;
    return r;
}

void ms_poster_send(ms_poster *p, const char *method, char *path, cJSON *body, const char *content_type,
                    bool urgent) {
    ms_poster_request rq = {method, path, body, content_type, 0};
    queue_report(p, request_report(&rq), urgent);
}

bool ms_poster_send_then(ms_poster *p, const ms_poster_request *first, const ms_poster_request *then,
                         bool urgent) {
    report *r = request_report(first), *t = then ? request_report(then) : NULL;
    if (r && t) {
        r->then = t;
        if (!r->victim) r->victim = t->victim;
    } else if (then) {
        /* Neither goes alone: then depends on first. */
        if (r) report_free(&r->link);
        if (t) report_free(&t->link);
        r = NULL;
    }
    return queue_report(p, r, urgent);
}

int ms_poster_fd(const ms_poster *p) { return ms_mailbox_fd(&p->failed); }

void ms_poster_take_failed_victims(ms_poster *p, void (*fn)(void *ctx, uint64_t victim), void *ctx) {
    ms_job *j = ms_mailbox_take_all(&p->failed);
    while (j) {
        ms_job *next = j->next;
        fn(ctx, ((report *)j)->victim);
        report_free(j);
        j = next;
    }
}

void ms_poster_event(ms_poster *p, ms_event_post *ev) {
    queue_report(p, report_new(REPORT_EVENT, "POST", NULL, ev), false);
}
