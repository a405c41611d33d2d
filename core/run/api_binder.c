/* The binder of `run`. See run/api_binder.h. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "run/api_binder.h"
#include "base/mailbox.h"

typedef struct bind_job {
    ms_job link;                   /* first: the queue's */
    ms_api_binder *owner;
    ms_pod *pod;                   /* referenced */
    char *node, *path, *body;
    bool ok, gone, dropped;        /* dropped: never answered (shutdown) */
    bool conflict;
    ms_bind_conflict why;
    char message[512];
    double attempt_start;
    double submitted, sent, answered; /* monotonic: where its time went */
    uint32_t profile;
} bind_job;

struct ms_api_binder {
    const ms_interner *in;
    ms_api_metrics *metrics;
    ms_kube_async *engine;
    ms_mailbox done;               /* answered, for the scheduler thread */
    uint32_t in_flight;            /* the scheduler thread's */
};

static void job_free(ms_job *j) {
    bind_job *b = (bind_job *)j;
    if (!b) return;
    if (b->pod) ms_pod_unref(b->pod);
    free(b->node);
    free(b->path);
    free(b->body);
    free(b);
}

ms_rc ms_api_binder_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics,
                        uint32_t max_in_flight, ms_api_binder **out, ms_error *err) {
    *out = NULL;
    ms_api_binder *b = calloc(1, sizeof *b);
    if (!b) return ms_error_set(err, MS_ENOMEM, "out of memory");
    b->in = in;
    b->metrics = metrics;
    if (ms_mailbox_init(&b->done) != 0) {
        ms_api_binder_free(b);
        return ms_error_set(err, MS_ENOMEM, "out of file descriptors");
    }
    ms_rc rc = ms_kube_async_new(c, max_in_flight, &b->engine, err);
    if (rc != MS_OK) {
        ms_api_binder_free(b);
        return rc;
    }
    *out = b;
    return MS_OK;
}

void ms_api_binder_stop(ms_api_binder *b) {
    if (!b) return;
    ms_kube_async_free(b->engine, 0);
    b->engine = NULL;
}

void ms_api_binder_free(ms_api_binder *b) {
    if (!b) return;
    ms_api_binder_stop(b);
    ms_mailbox_destroy(&b->done, job_free);
    free(b);
}

int ms_api_binder_fd(const ms_api_binder *b) { return ms_mailbox_fd(&b->done); }
uint32_t ms_api_binder_in_flight(const ms_api_binder *b) { return b->in_flight; }

ms_bind_conflict ms_api_binder_conflict_of(const char *message) {
    static const struct {
        const char *words;
        ms_bind_conflict why;
    } known[] = {
        /* BindingREST.setPodHostAndAnnotations, checked in this order */
        {" is being deleted, cannot be assigned to a host", MS_BIND_CONFLICT_BEING_DELETED},
        {" is already assigned to node ", MS_BIND_CONFLICT_ALREADY_BOUND},
        {" has non-empty .spec.schedulingGates", MS_BIND_CONFLICT_GATED},
        /* the storage's UID precondition (the Binding carries the pod's UID) */
        {"Precondition failed: UID in precondition", MS_BIND_CONFLICT_UID_CHANGED},
    };
    for (size_t i = 0; message && i < sizeof known / sizeof known[0]; i++)
        if (strstr(message, known[i].words)) return known[i].why;
    return MS_BIND_CONFLICT_OTHER;
}

/* On the client's thread. */
static void answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    bind_job *j = ctx;
    ms_api_binder *b = j->owner;
    ms_api_metrics_request(b->metrics, rc == MS_OK ? resp->status : 0);
    j->answered = ms_clock_monotonic();
    j->sent = resp->sent;
    if (rc == MS_OK && resp->status >= 200 && resp->status < 300) {
        j->ok = true;
    } else if (rc == MS_OK) {
        j->gone = resp->status == 404;
        /* Whole: the words that say what a 409 means may follow a long key. */
        char msg[1024];
        ms_kube_status_message(resp, msg, sizeof msg);
        if (resp->status == 409) {
            j->conflict = true;
            j->why = ms_api_binder_conflict_of(msg);
        }
        snprintf(j->message, sizeof j->message, "binding rejected (%ld): %.400s", resp->status, msg);
    } else {
        j->dropped = rc == MS_ESTATE;
        snprintf(j->message, sizeof j->message, "binding failed: %.200s", err ? err->msg : "");
    }
    ms_kube_response_free(resp);
    ms_mailbox_post(&b->done, &j->link, false);
}

static char *binding_json(const ms_pod *pod, const char *ns, const char *name, const char *node) {
    cJSON *b = cJSON_CreateObject();
    if (!b) return NULL;
    cJSON_AddStringToObject(b, "apiVersion", "v1");
    cJSON_AddStringToObject(b, "kind", "Binding");
    cJSON *m = cJSON_AddObjectToObject(b, "metadata");
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddStringToObject(m, "namespace", ns);
    if (pod->meta.uid && pod->meta.uid[0]) cJSON_AddStringToObject(m, "uid", pod->meta.uid);
    cJSON *t = cJSON_AddObjectToObject(b, "target");
    cJSON_AddStringToObject(t, "apiVersion", "v1");
    cJSON_AddStringToObject(t, "kind", "Node");
    cJSON_AddStringToObject(t, "name", node);
    char *s = cJSON_PrintUnformatted(b);
    cJSON_Delete(b);
    return s;
}

ms_rc ms_api_binder_bind(ms_api_binder *b, const ms_pod *pod, const char *node, double attempt_start,
                         uint32_t profile) {
    if (!b->engine) return MS_ESTATE;
    const char *ns = ms_str_get(b->in, pod->meta.namespace_), *name = ms_str_get(b->in, pod->meta.name);
    bind_job *j = calloc(1, sizeof *j);
    if (!j) return MS_ENOMEM;
    ms_buf path = {0};
    ms_buf_printf(&path, "/api/v1/namespaces/%s/pods/%s/binding", ns, name);
    j->path = ms_buf_take(&path);
    j->body = binding_json(pod, ns, name, node);
    j->node = strdup(node);
    if (!j->body || !j->path || !j->node) {
        job_free(&j->link);
        return MS_ENOMEM;
    }
    j->pod = ms_pod_ref((ms_pod *)pod);
    j->owner = b;
    j->attempt_start = attempt_start;
    j->profile = profile;
    j->submitted = ms_clock_monotonic();
    ms_kube_request rq = {.method = "POST", .path = j->path, .body = j->body, .body_len = strlen(j->body)};
    ms_rc rc = ms_kube_async_submit(b->engine, &rq, answered, j);
    if (rc != MS_OK) {
        job_free(&j->link);
        return rc;
    }
    b->in_flight++;
    return MS_OK;
}

void ms_api_binder_drain(ms_api_binder *b, void (*fn)(void *ctx, const ms_bind_outcome *o), void *ctx) {
    ms_job *j = ms_mailbox_take_all(&b->done);
    while (j) {
        ms_job *n = j->next;
        const bind_job *bj = (const bind_job *)j;
        b->in_flight--;
        if (!bj->dropped) {
            ms_bind_outcome o = {.pod = bj->pod, .node = bj->node, .ok = bj->ok, .gone = bj->gone,
                                 .conflict = bj->conflict, .why = bj->why, .message = bj->ok ? "" : bj->message, .attempt_start = bj->attempt_start,
                                 .profile = bj->profile, .submitted = bj->submitted, .sent = bj->sent,
                                 .answered = bj->answered};
            fn(ctx, &o);
        }
        job_free(j);
        j = n;
    }
}
