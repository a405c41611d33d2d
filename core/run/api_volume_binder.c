/* `run`'s volume binder. See run/api_volume_binder.h. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "run/api_volume_binder.h"
#include "run/api_writes.h"

/* One object to patch. */
typedef struct vb_write {
    char *path, *body;
    char what[320];                /* "PersistentVolume pv-1", for messages */
} vb_write;

/* One pod's writes, sent one after the other. */
typedef struct vb_job {
    ms_job link;                   /* first: the queue's */
    ms_api_volume_binder *owner;
    ms_pod *pod;                   /* referenced */
    uint32_t nwrites, next;        /* next: the write in flight */
    vb_write *writes;
    bool failed, dropped;          /* dropped: never answered (shutdown) */
    char message[768];
} vb_job;

struct ms_api_volume_binder {
    const ms_interner *in;
    ms_api_metrics *metrics;
    const ms_logger *log;
    ms_api_writes w;
};

static void job_free(ms_job *j) {
    vb_job *v = (vb_job *)j;
    if (!v) return;
    if (v->pod) ms_pod_unref(v->pod);
    for (uint32_t i = 0; i < v->nwrites; i++) {
        free(v->writes[i].path);
        free(v->writes[i].body);
    }
    free(v->writes);
    free(v);
}

ms_rc ms_api_volume_binder_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics,
                               const ms_logger *log, ms_api_volume_binder **out, ms_error *err) {
    *out = NULL;
    ms_api_volume_binder *b = calloc(1, sizeof *b);
    if (!b) return ms_error_set(err, MS_ENOMEM, "out of memory");
    b->in = in;
    b->metrics = metrics;
    b->log = log ? log : &ms_log_default;
    /* Writes are few (one per claim to bind), and a pod's go in turn. */
    ms_rc rc = ms_api_writes_init(&b->w, c, 16, err);
    if (rc != MS_OK) {
        ms_api_volume_binder_free(b);
        return rc;
    }
    *out = b;
    return MS_OK;
}

void ms_api_volume_binder_stop(ms_api_volume_binder *b) {
    if (b) ms_api_writes_stop(&b->w);
}

void ms_api_volume_binder_free(ms_api_volume_binder *b) {
    if (!b) return;
    ms_api_writes_destroy(&b->w, job_free);
    free(b);
}

int ms_api_volume_binder_fd(const ms_api_volume_binder *b) { return ms_mailbox_fd(&b->w.done); }

static void finish(vb_job *j) { ms_api_writes_finish(&j->owner->w, &j->link); }

static void answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err);

/* The write at j->next; false when it could not be sent (j->message says why). */
static bool send_next(vb_job *j) {
    const vb_write *w = &j->writes[j->next];
    ms_kube_request rq = {.method = "PATCH", .path = w->path, .body = w->body, .body_len = strlen(w->body),
                          .content_type = "application/merge-patch+json"};
    ms_rc rc = ms_kube_async_submit(j->owner->w.engine, &rq, answered, j);
    if (rc == MS_OK) return true;
    j->dropped = rc == MS_ESTATE;
    snprintf(j->message, sizeof j->message, "updating %s: %s", w->what, ms_rc_str(rc));
    return false;
}

/* On the client's thread: the next write, or the job is over. */
static void answered(void *ctx, ms_rc rc, ms_kube_response *resp, const ms_error *err) {
    vb_job *j = ctx;
    const vb_write *w = &j->writes[j->next];
    ms_api_metrics_request(j->owner->metrics, rc == MS_OK ? resp->status : 0);
    if (rc == MS_OK && resp->status >= 200 && resp->status < 300) {
        ms_kube_response_free(resp);
        if (++j->next < j->nwrites && send_next(j)) return;
        j->failed = j->next < j->nwrites;
        finish(j);
        return;
    }
    j->failed = true;
    if (rc == MS_OK) {
        char msg[600];
        ms_kube_status_message(resp, msg, sizeof msg);
        snprintf(j->message, sizeof j->message, "%s", msg);
    } else {
        j->dropped = rc == MS_ESTATE;
        snprintf(j->message, sizeof j->message, "updating %s: %.300s", w->what, err ? err->msg : ms_rc_str(rc));
    }
    ms_kube_response_free(resp);
    finish(j);
}

/* metadata: the resourceVersion seen (a precondition: 409 when the object
 * changed since) and one annotation. */
static cJSON *patch_metadata(cJSON *root, const ms_storage_object *o, const char *ann, const char *value) {
    cJSON *m = cJSON_AddObjectToObject(root, "metadata");
    if (!m) return NULL;
    if (o->meta.resource_version && o->meta.resource_version[0])
        cJSON_AddStringToObject(m, "resourceVersion", o->meta.resource_version);
    if (ann) {
        cJSON *a = cJSON_AddObjectToObject(m, "annotations");
        if (a) cJSON_AddStringToObject(a, ann, value);
    }
    return m;
}

/* upstream's GetBindVolumeToClaim on the PV Reserve assumed: claimRef is
 * the claim's reference (reference.GetReference), and the PV is marked
 * bound by a controller unless it was pre-bound to the claim (Reserve
 * decided which). */
static char *pv_patch(const ms_interner *in, const ms_volume_binding *vb) {
    const ms_storage_object *pv = vb->pv, *pvc = vb->pvc;
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    patch_metadata(root, pv, vb->bound_by_controller ? "pv.kubernetes.io/bound-by-controller" : NULL, "yes");
    cJSON *spec = cJSON_AddObjectToObject(root, "spec");
    cJSON *ref = spec ? cJSON_AddObjectToObject(spec, "claimRef") : NULL;
    if (ref) {
        cJSON_AddStringToObject(ref, "kind", "PersistentVolumeClaim");
        cJSON_AddStringToObject(ref, "namespace", ms_str_get(in, pvc->meta.namespace_));
        cJSON_AddStringToObject(ref, "name", ms_str_get(in, pvc->meta.name));
        cJSON_AddStringToObject(ref, "uid", pvc->meta.uid ? pvc->meta.uid : "");
        cJSON_AddStringToObject(ref, "apiVersion", "v1");
        if (pvc->meta.resource_version && pvc->meta.resource_version[0])
            cJSON_AddStringToObject(ref, "resourceVersion", pvc->meta.resource_version);
    }
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

static char *pvc_patch(const ms_storage_object *pvc, const char *node) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    patch_metadata(root, pvc, "volume.kubernetes.io/selected-node", node);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

static bool fill_write(const ms_interner *in, vb_write *w, const ms_volume_binding *vb, const char *node) {
    ms_buf path = {0};
    if (vb->pv) {
        const char *name = ms_str_get(in, vb->pv->meta.name);
        ms_buf_printf(&path, "/api/v1/persistentvolumes/%s", name);
        snprintf(w->what, sizeof w->what, "PersistentVolume %.250s", name);
        w->body = pv_patch(in, vb);
    } else {
        const char *ns = ms_str_get(in, vb->pvc->meta.namespace_), *name = ms_str_get(in, vb->pvc->meta.name);
        ms_buf_printf(&path, "/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, name);
        snprintf(w->what, sizeof w->what, "PersistentVolumeClaim %.60s/%.200s", ns, name);
        w->body = pvc_patch(vb->pvc, node);
    }
    w->path = ms_buf_take(&path);
    return w->path && w->body;
}

static ms_rc vb_bind(void *ctx, const ms_pod *pod, ms_str node, const ms_pod_volumes *v, ms_error *err) {
    ms_api_volume_binder *b = ctx;
    if (!b->w.engine) return ms_error_set(err, MS_ESTATE, "shutting down");
    uint32_t n = v->nbindings + v->nprovisions;
    if (n == 0) return MS_OK;
    vb_job *j = calloc(1, sizeof *j);
    if (j) j->writes = calloc(n, sizeof *j->writes);
    if (!j || !j->writes) {
        free(j);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    j->owner = b;
    const char *node_name = ms_str_get(b->in, node);
    for (uint32_t i = 0; i < n; i++) {
        const ms_volume_binding *vb = i < v->nbindings ? &v->bindings[i] : &v->provisions[i - v->nbindings];
        j->nwrites++;
        if (!fill_write(b->in, &j->writes[i], vb, node_name)) {
            job_free(&j->link);
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        }
    }
    j->pod = ms_pod_ref((ms_pod *)pod);
    if (!send_next(j)) {
        ms_rc rc = j->dropped ? MS_ESTATE : MS_ENOMEM;
        ms_error_set(err, rc, "%s", j->message);
        job_free(&j->link);
        return rc;
    }
    return MS_OK;
}

ms_volume_binder ms_api_volume_binder_vtable(ms_api_volume_binder *b) {
    return (ms_volume_binder){.ctx = b, .bind = vb_bind, .cancel = NULL};
}

void ms_api_volume_binder_drain(ms_api_volume_binder *b,
                                void (*failed)(void *ctx, const ms_pod *pod, const char *message),
                                void *ctx) {
    ms_job *j = ms_api_writes_take(&b->w);
    while (j) {
        ms_job *n = j->next;
        const vb_job *vj = (const vb_job *)j;
        if (vj->failed && !vj->dropped) {
            char key[512];
            ms_pod_key(vj->pod, b->in, key, sizeof key);
            ms_log(b->log, MS_LOG_INFO, "binding volumes failed", "pod", key, "error", vj->message, NULL);
            failed(ctx, vj->pod, vj->message);
        }
        job_free(j);
        j = n;
    }
}
