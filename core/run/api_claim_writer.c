/* `run`'s claim writer. See run/api_claim_writer.h. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "run/api_claim_writer.h"
#include "run/api_writes.h"

/* upstream's retry.DefaultRetry: 5 attempts */
#define ATTEMPTS 5

/* upstream's resourceapi.Finalizer: a claim the scheduler allocated is not
 * removed before it is deallocated */
#define FINALIZER "resource.kubernetes.io/delete-protection"

/* One claim to write, and what a retry needs to write it anew on the
 * claim read again. */
typedef struct cw_claim {
    char *path;                    /* .../resourceclaims/NAME */
    char *status_path;             /* its status subresource */
    char what[320];                /* "ns/name", for messages */
    char *rv;                      /* the resourceVersion the patch carries */
    char *uid;                     /* the claim's (unreserving) */
    cJSON *allocation;             /* NULL: allocated before this cycle */
    cJSON *reserved_for;           /* the whole list to write */
    cJSON *consumer;               /* the pod's entry in it */
} cw_claim;

/* One pod's claims, written one after the other. */
typedef struct cw_job {
    ms_job link;                   /* first: the queue's */
    ms_api_claim_writer *owner;
    ms_pod *pod;                   /* referenced */
    uint32_t n, next;              /* next: the claim being written */
    uint32_t attempts;             /* of the claim being written */
    bool unreserving;              /* removing the pod from reservedFor */
    bool deallocating;             /* PostFilter's: allocation and reservedFor cleared */
    bool finalizing;               /* the finalizer's patch is in flight */
    bool finalized;                /* the claim being written has the finalizer */
    bool rereading;                /* a GET after a conflict is in flight */
    cw_claim *claims;
    char *body;                    /* the PATCH in flight */
    bool failed, dropped;          /* dropped: never answered (shutdown) */
    char message[768];
} cw_job;

struct ms_api_claim_writer {
    const ms_interner *in;
    ms_api_metrics *metrics;
    const ms_logger *log;
    ms_api_writes q;
};

static void job_free(ms_job *jl) {
    cw_job *j = (cw_job *)jl;
    if (!j) return;
    if (j->pod) ms_pod_unref(j->pod);
    for (uint32_t i = 0; i < j->n; i++) {
        cw_claim *k = &j->claims[i];
        free(k->path);
        free(k->status_path);
        free(k->rv);
        free(k->uid);
        cJSON_Delete(k->allocation);
        cJSON_Delete(k->reserved_for);
        cJSON_Delete(k->consumer);
    }
    free(j->claims);
    free(j->body);
    free(j);
}

ms_rc ms_api_claim_writer_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics, const ms_logger *log,
                              ms_api_claim_writer **out, ms_error *err) {
    *out = NULL;
    ms_api_claim_writer *w = calloc(1, sizeof *w);
    if (!w) return ms_error_set(err, MS_ENOMEM, "out of memory");
    w->in = in;
    w->metrics = metrics;
    w->log = log ? log : &ms_log_default;
    ms_rc rc = ms_api_writes_init(&w->q, c, 16, err);
    if (rc != MS_OK) {
        ms_api_claim_writer_free(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}

void ms_api_claim_writer_stop(ms_api_claim_writer *w) {
    if (w) ms_api_writes_stop(&w->q);
}

void ms_api_claim_writer_free(ms_api_claim_writer *w) {
    if (!w) return;
    ms_api_writes_destroy(&w->q, job_free);
    free(w);
}

int ms_api_claim_writer_fd(const ms_api_claim_writer *w) { return ms_mailbox_fd(&w->q.done); }

static void finish(cw_job *j) { ms_api_writes_finish(&j->owner->q, &j->link); }

/* The merge patch of the claim's status, with its resourceVersion as a
 * precondition. */
static char *status_patch(const cw_claim *k) {
    cJSON *root = cJSON_CreateObject();
    cJSON *m = root ? cJSON_AddObjectToObject(root, "metadata") : NULL;
    cJSON *st = root ? cJSON_AddObjectToObject(root, "status") : NULL;
    char *s = NULL;
    if (m && st && (!k->rv[0] || cJSON_AddStringToObject(m, "resourceVersion", k->rv)) &&
        (!k->allocation || cJSON_AddItemReferenceToObject(st, "allocation", k->allocation)) &&
        cJSON_AddItemReferenceToObject(st, "reservedFor", k->reserved_for))
        s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

static void answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err);

/* false when the request could not be sent (j->message says why) */
static bool submit(cw_job *j, const ms_kube_request *rq, const char *doing) {
    ms_rc rc = ms_kube_async_submit(j->owner->q.engine, rq, answered, j);
    if (rc == MS_OK) return true;
    j->dropped = rc == MS_ESTATE;
    snprintf(j->message, sizeof j->message, "%s claim %s: %s", doing, j->claims[j->next].what, ms_rc_str(rc));
    return false;
}

static const char *doing(const cw_claim *k) {
    return k->allocation ? "add allocation and reservation to" : "add reservation to";
}

/* upstream's Unreserve: the pod's entry deleted by its uid, the claim's uid
 * as a precondition (a claim made anew under the name is not touched). */
static char *unreserve_patch(const cw_claim *k, const ms_pod *pod) {
    ms_buf b = {0};
    ms_buf_printf(&b, "{\"metadata\":{\"uid\":\"%s\"},\"status\":{\"reservedFor\":[{\"$patch\":\"delete\",\"uid\":\"%s\"}]}}",
                  k->uid, pod->meta.uid ? pod->meta.uid : "");
    return ms_buf_take(&b);
}

/* upstream's PostFilter: allocation and reservedFor cleared, with the
 * resourceVersion seen as a precondition. */
static char *deallocate_patch(const cw_claim *k) {
    ms_buf b = {0};
    ms_buf_printf(&b, "{\"metadata\":{\"resourceVersion\":\"%s\"},\"status\":{\"allocation\":null,\"reservedFor\":null}}",
                  k->rv);
    return ms_buf_take(&b);
}

/* Unreserve's and PostFilter's writes: after the scheduling or binding
 * cycle, their failures only logged. */
static bool after_cycle(const cw_job *j) { return j->unreserving || j->deallocating; }

static const char *after_cycle_doing(const cw_job *j) {
    return j->deallocating ? "deallocate" : "remove reservation from";
}

/* The finalizer added in the claim itself (the status subresource does not
 * take metadata), before the allocation: a strategic merge patch, which
 * adds to the list, with the resourceVersion as a precondition. */
static char *finalizer_patch(const cw_claim *k) {
    ms_buf b = {0};
    ms_buf_printf(&b, "{\"metadata\":{\"resourceVersion\":\"%s\",\"finalizers\":[\"" FINALIZER "\"]}}", k->rv);
    return ms_buf_take(&b);
}

static bool send_patch(cw_job *j) {
    cw_claim *k = &j->claims[j->next];
    free(j->body);
    /* upstream: the finalizer in a normal update first, then the status */
    j->finalizing = k->allocation && !j->finalized;
    if (j->finalizing) {
        j->body = finalizer_patch(k);
        ms_kube_request rq = {.method = "PATCH", .path = k->path, .body = j->body,
                              .body_len = j->body ? strlen(j->body) : 0,
                              .content_type = "application/strategic-merge-patch+json"};
        j->attempts++;
        j->rereading = false;
        return j->body && submit(j, &rq, "add finalizer to");
    }
    if (after_cycle(j)) {
        j->body = j->unreserving ? unreserve_patch(k, j->pod) : deallocate_patch(k);
        ms_kube_request rq = {.method = "PATCH", .path = k->status_path, .body = j->body,
                              .body_len = j->body ? strlen(j->body) : 0,
                              .content_type = j->unreserving ? "application/strategic-merge-patch+json"
                                                             : "application/merge-patch+json"};
        return j->body && submit(j, &rq, after_cycle_doing(j));
    }
    j->body = status_patch(k);
    if (!j->body) {
        snprintf(j->message, sizeof j->message, "%s claim %s: out of memory", doing(k), k->what);
        return false;
    }
    /* the engine reads path and body until the answer: both stay in j */
    ms_kube_request rq = {.method = "PATCH", .path = k->status_path, .body = j->body, .body_len = strlen(j->body),
                          .content_type = "application/merge-patch+json"};
    if (!k->allocation) j->attempts++;   /* else the finalizer's began the attempt */
    j->rereading = false;
    return submit(j, &rq, doing(k));
}

static bool send_get(cw_job *j) {
    ms_kube_request rq = {.method = "GET", .path = j->claims[j->next].path};
    j->rereading = true;
    return submit(j, &rq, "get updated");
}

static void fail(cw_job *j, const char *fmt, const char *what, const char *detail) {
    j->failed = true;
    snprintf(j->message, sizeof j->message, fmt, what, detail);
}

/* The claim as read after a conflict: the patch is made anew on it, as
 * upstream's retry does on the claim it gets. False when it must not be
 * (j->message says why). */
static bool reread(cw_job *j, const char *body) {
    cw_claim *k = &j->claims[j->next];
    cJSON *doc = cJSON_Parse(body ? body : "");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(doc, "status");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    bool ok = false;
    if (!cJSON_IsString(rv))
        fail(j, "get updated claim %s after conflict: %s", k->what, "the answer has no resourceVersion");
    else if (cJSON_GetObjectItemCaseSensitive(meta, "deletionTimestamp"))
        fail(j, "claim %s got deleted in the meantime%s", k->what, "");
    else if (k->allocation && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(status, "allocation")))
        fail(j, "claim %s got allocated elsewhere in the meantime%s", k->what, "");
    else
        ok = true;
    if (ok) {
        const cJSON *had = cJSON_GetObjectItemCaseSensitive(status, "reservedFor");
        cJSON *list = cJSON_IsArray(had) ? cJSON_Duplicate(had, true) : cJSON_CreateArray();
        const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(k->consumer, "uid"));
        bool there = false;
        const cJSON *e;
        cJSON_ArrayForEach(e, list) {
            const char *u = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "uid"));
            there |= u && uid && strcmp(u, uid) == 0;
        }
        char *nrv = strdup(rv->valuestring);
        if (!list || !nrv || (!there && !cJSON_AddItemToArray(list, cJSON_Duplicate(k->consumer, true)))) {
            cJSON_Delete(list);
            free(nrv);
            fail(j, "get updated claim %s after conflict: %s", k->what, "out of memory");
            ok = false;
        } else {
            cJSON_Delete(k->reserved_for);
            k->reserved_for = list;
            free(k->rv);
            k->rv = nrv;
        }
    }
    cJSON_Delete(doc);
    return ok;
}

/* The resourceVersion of the claim an answer returns, for the next patch. */
static bool take_rv(cw_job *j, const char *body) {
    cw_claim *k = &j->claims[j->next];
    cJSON *doc = cJSON_Parse(body ? body : "");
    const char *rv = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metadata"), "resourceVersion"));
    char *copy = rv ? strdup(rv) : NULL;
    cJSON_Delete(doc);
    if (!copy) {
        fail(j, "add finalizer to claim %s: %s", k->what, "the answer has no resourceVersion");
        return false;
    }
    free(k->rv);
    k->rv = copy;
    return true;
}

/* On the client's thread: the next request, or the job is over. */
static void answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    cw_job *j = ctx;
    cw_claim *k = &j->claims[j->next];
    long status = rc == MS_OK ? resp->status : 0;
    ms_api_metrics_request(j->owner->metrics, status);
    char msg[400] = "";
    if (rc == MS_OK && (status < 200 || status >= 300)) ms_kube_status_message(resp, msg, sizeof msg);
    else if (rc != MS_OK) {
        j->dropped = rc == MS_ESTATE;
        snprintf(msg, sizeof msg, "%.300s", err ? err->msg : ms_rc_str(rc));
    }
    bool ok = status >= 200 && status < 300;
    bool more;
    if (after_cycle(j)) {
        if (!ok) fail(j, j->deallocating ? "deallocate claim %s: %s" : "remove reservation from claim %s: %s", k->what, msg);
        more = ok && ++j->next < j->n && send_patch(j);
    } else if (j->rereading) {
        if (!ok) fail(j, "get updated claim %s after conflict: %s", k->what, msg);
        more = ok && reread(j, resp->body) && send_patch(j);
    } else if (ok && j->finalizing) {
        /* the status goes on the claim as the finalizer's patch left it */
        j->finalized = true;
        more = take_rv(j, resp->body) && send_patch(j);
    } else if (ok) {
        j->attempts = 0;
        j->finalized = false;
        more = ++j->next < j->n && send_patch(j);
        if (!more && j->next < j->n) j->failed = true;
    } else if (status == 409 && j->attempts < ATTEMPTS) {
        more = send_get(j);
    } else {
        j->failed = true;
        snprintf(j->message, sizeof j->message, "%s claim %s: %s", j->finalizing ? "add finalizer to" : doing(k),
                 k->what, msg);
        more = false;
    }
    if (rc == MS_OK) ms_kube_response_free(resp);
    if (!more) {
        j->failed |= !ok || (j->next < j->n && !after_cycle(j));
        finish(j);
    }
}

/* The status the plugin wrote into the copy, as the API has it. */
static cJSON *allocation_json(const ms_interner *in, const ms_resource_claim *c) {
    cJSON *a = cJSON_CreateObject();
    cJSON *devices = a ? cJSON_AddObjectToObject(a, "devices") : NULL;
    cJSON *results = devices ? cJSON_AddArrayToObject(devices, "results") : NULL;
    if (!results) {
        cJSON_Delete(a);
        return NULL;
    }
    for (uint32_t i = 0; i < c->nresults; i++) {
        const ms_device_result *r = &c->results[i];
        cJSON *e = cJSON_CreateObject();
        if (!e) continue;
        cJSON_AddStringToObject(e, "request", ms_str_get(in, r->request));
        cJSON_AddStringToObject(e, "driver", ms_str_get(in, r->driver));
        cJSON_AddStringToObject(e, "pool", ms_str_get(in, r->pool));
        cJSON_AddStringToObject(e, "device", ms_str_get(in, r->device));
        if (r->admin_access) cJSON_AddTrueToObject(e, "adminAccess");
        cJSON_AddItemToArray(results, e);
    }
    /* The node selector PreBind makes for node-local devices: matchFields
     * metadata.name In [node], as upstream's allocator does. */
    for (uint32_t t = 0; c->has_node_selector && t < c->node_selector.n; t++) {
        cJSON *terms = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(a, "nodeSelector"),
                                                        "nodeSelectorTerms");
        if (!terms) terms = cJSON_AddArrayToObject(cJSON_AddObjectToObject(a, "nodeSelector"), "nodeSelectorTerms");
        cJSON *term = cJSON_CreateObject(), *fields = term ? cJSON_AddArrayToObject(term, "matchFields") : NULL;
        const ms_node_selector_term *nt = &c->node_selector.terms[t];
        for (uint32_t f = 0; fields && f < nt->nfields; f++) {
            cJSON *req = cJSON_CreateObject();
            cJSON_AddStringToObject(req, "key", ms_str_get(in, nt->fields[f].key));
            cJSON_AddStringToObject(req, "operator", "In");
            cJSON *vals = cJSON_AddArrayToObject(req, "values");
            for (uint32_t v = 0; v < nt->fields[f].nvalues; v++)
                cJSON_AddItemToArray(vals, cJSON_CreateString(ms_str_get(in, nt->fields[f].values[v])));
            cJSON_AddItemToArray(fields, req);
        }
        cJSON_AddItemToArray(terms, term);
    }
    return a;
}

/* A status.reservedFor entry; api_group NULL for the core group. */
static cJSON *consumer_json(const char *api_group, const char *resource, const char *name, const char *uid) {
    cJSON *e = cJSON_CreateObject();
    if (!e) return NULL;
    if (api_group) cJSON_AddStringToObject(e, "apiGroup", api_group);
    cJSON_AddStringToObject(e, "resource", resource);
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "uid", uid ? uid : "");
    return e;
}

static bool fill_claim(const ms_interner *in, cw_claim *k, const ms_claim_write *cw, const ms_pod *pod) {
    const ms_object_meta *m = &cw->claim->meta;
    const char *ns = ms_str_get(in, m->namespace_), *name = ms_str_get(in, m->name);
    ms_buf path = {0};
    ms_buf_printf(&path, "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s", ns, name);
    k->path = ms_buf_take(&path);
    if (k->path) ms_buf_printf(&path, "%s/status", k->path);
    k->status_path = ms_buf_take(&path);
    snprintf(k->what, sizeof k->what, "%.60s/%.250s", ns, name);
    k->rv = strdup(m->resource_version ? m->resource_version : "");
    const ms_resource_claim *c = &cw->status->u.claim;
    if (cw->allocate) k->allocation = allocation_json(in, c);
    k->reserved_for = cJSON_CreateArray();
    for (uint32_t i = 0; k->reserved_for && i < c->nreserved_for; i++) {
        const ms_claim_consumer *r = &c->reserved_for[i];
        cJSON_AddItemToArray(k->reserved_for,
                             consumer_json(r->api_group == MS_STR_NONE ? NULL : ms_str_get(in, r->api_group),
                                           ms_str_get(in, r->resource), ms_str_get(in, r->name), r->uid));
    }
    k->consumer = consumer_json(NULL, "pods", ms_str_get(in, pod->meta.name), pod->meta.uid);
    return k->path && k->status_path && k->rv && (!cw->allocate || k->allocation) && k->reserved_for && k->consumer;
}

static ms_rc cw_write(void *ctx, const ms_pod *pod, const ms_claim_write *writes, uint32_t n, ms_error *err) {
    ms_api_claim_writer *w = ctx;
    if (!w->q.engine) return ms_error_set(err, MS_ESTATE, "shutting down");
    if (n == 0) return MS_OK;
    cw_job *j = calloc(1, sizeof *j);
    if (j) j->claims = calloc(n, sizeof *j->claims);
    if (!j || !j->claims) {
        free(j);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    j->owner = w;
    j->pod = ms_pod_ref((ms_pod *)pod);
    for (uint32_t i = 0; i < n; i++) {
        j->n++;
        if (!fill_claim(w->in, &j->claims[i], &writes[i], pod)) {
            job_free(&j->link);
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
    }
    if (!send_patch(j)) {
        ms_rc rc = j->dropped ? MS_ESTATE : MS_ENOMEM;
        ms_error_set(err, rc, "%s", j->message);
        job_free(&j->link);
        return rc;
    }
    return MS_OK;
}

static const char *after_cycle_failure(bool deallocating) {
    return deallocating ? "deallocating the claim failed" : "removing the pod from its claims' reservedFor failed";
}

/* Unreserve's and PostFilter's jobs: sent at once, failures logged. */
static void send_after_cycle(ms_api_claim_writer *w, const ms_pod *pod, const ms_dra_object *const *claims, uint32_t n,
                             bool deallocating) {
    cw_job *j = w->q.engine && n ? calloc(1, sizeof *j) : NULL;
    if (j) j->claims = calloc(n, sizeof *j->claims);
    bool ok = j && j->claims;
    if (ok) {
        j->owner = w;
        j->unreserving = !deallocating;
        j->deallocating = deallocating;
        j->pod = ms_pod_ref((ms_pod *)pod);
        for (uint32_t i = 0; i < n && ok; i++) {
            cw_claim *k = &j->claims[j->n++];
            ms_claim_write cw = {claims[i], claims[i], false};
            ok = fill_claim(w->in, k, &cw, pod) && (k->uid = strdup(claims[i]->meta.uid ? claims[i]->meta.uid : ""));
        }
    }
    if (ok && send_patch(j)) return;
    char key[512] = "";
    if (n) ms_pod_key(pod, w->in, key, sizeof key);
    ms_log(w->log, MS_LOG_INFO, after_cycle_failure(deallocating), "pod", key, "error",
           j && j->message[0] ? j->message : "out of memory", NULL);
    if (j && j->claims) job_free(&j->link);
    else free(j);
}

static void cw_unreserve(void *ctx, const ms_pod *pod, const ms_dra_object *const *claims, uint32_t n) {
    send_after_cycle(ctx, pod, claims, n, false);
}

static void cw_deallocate(void *ctx, const ms_pod *pod, const ms_dra_object *claim) {
    send_after_cycle(ctx, pod, &claim, 1, true);
}

ms_claim_writer ms_api_claim_writer_vtable(ms_api_claim_writer *w) {
    return (ms_claim_writer){.ctx = w, .write = cw_write, .unreserve = cw_unreserve, .deallocate = cw_deallocate};
}

void ms_api_claim_writer_drain(ms_api_claim_writer *w,
                               void (*failed)(void *ctx, const ms_pod *pod, const char *message), void *ctx) {
    ms_job *jl = ms_api_writes_take(&w->q);
    while (jl) {
        ms_job *n = jl->next;
        const cw_job *j = (const cw_job *)jl;
        if (j->failed && !j->dropped) {
            char key[512];
            ms_pod_key(j->pod, w->in, key, sizeof key);
            ms_log(w->log, MS_LOG_INFO, after_cycle(j) ? after_cycle_failure(j->deallocating) : "binding claims failed", "pod", key,
                   "error", j->message, NULL);
            /* the cycle ended already for Unreserve's and PostFilter's */
            if (!after_cycle(j)) failed(ctx, j->pod, j->message);
        }
        job_free(jl);
        jl = n;
    }
}
