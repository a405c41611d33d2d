/* Event JSON and its posting. See client/event_recorder.h. */
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/event_recorder.h"
#include "base/buf.h"
#include "base/clock.h"

struct ms_event_recorder {
    char controller[128], instance[256];
    bool core_only;
    uint64_t seq;                  /* the building thread's */
    atomic_bool v1_missing;        /* events.k8s.io/v1 answered 404: core/v1 only */
};

ms_event_recorder *ms_event_recorder_new(const ms_event_recorder_options *o) {
    ms_event_recorder *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    snprintf(r->controller, sizeof r->controller, "%s", o->controller ? o->controller : "");
    snprintf(r->instance, sizeof r->instance, "%s", o->instance ? o->instance : "");
    r->core_only = o->core_only;
    atomic_init(&r->v1_missing, false);
    return r;
}

void ms_event_recorder_free(ms_event_recorder *r) { free(r); }

void ms_event_post_free(ms_event_post *p) {
    if (!p) return;
    free(p->path);
    free(p->body);
    free(p->fallback_path);
    free(p->fallback_body);
    memset(p, 0, sizeof *p);
}

static void add_ref(cJSON *obj, const char *field, const ms_object_ref *o) {
    cJSON *ref = cJSON_AddObjectToObject(obj, field);
    cJSON_AddStringToObject(ref, "apiVersion", o->api_version);
    cJSON_AddStringToObject(ref, "kind", o->kind);
    cJSON_AddStringToObject(ref, "namespace", o->ns);
    cJSON_AddStringToObject(ref, "name", o->name);
    if (o->uid && o->uid[0]) cJSON_AddStringToObject(ref, "uid", o->uid);
}

static void add_head(cJSON *ev, const char *api_version, const char *name, const char *ns) {
    cJSON_AddStringToObject(ev, "apiVersion", api_version);
    cJSON_AddStringToObject(ev, "kind", "Event");
    cJSON *m = cJSON_AddObjectToObject(ev, "metadata");
    cJSON_AddStringToObject(m, "name", name);
    cJSON_AddStringToObject(m, "namespace", ns);
}

static char *print_and_delete(cJSON *ev) {
    char *s = ev ? cJSON_PrintUnformatted(ev) : NULL;
    cJSON_Delete(ev);
    return s;
}

/* time: MicroTime (6 digits). */
static char *v1_body(const ms_event_recorder *r, const ms_event *ev, const char *name, const char *time) {
    cJSON *v1 = cJSON_CreateObject();
    if (!v1) return NULL;
    add_head(v1, "events.k8s.io/v1", name, ev->regarding->ns);
    cJSON_AddStringToObject(v1, "eventTime", time);
    cJSON_AddStringToObject(v1, "reportingController", ev->controller ? ev->controller : r->controller);
    cJSON_AddStringToObject(v1, "reportingInstance", ev->instance ? ev->instance : r->instance);
    cJSON_AddStringToObject(v1, "action", ev->action ? ev->action : "");
    cJSON_AddStringToObject(v1, "reason", ev->reason);
    cJSON_AddStringToObject(v1, "type", ev->type);
    cJSON_AddStringToObject(v1, "note", ev->note);
    add_ref(v1, "regarding", ev->regarding);
    if (ev->related) add_ref(v1, "related", ev->related);
    if (ev->count > 1) {
        cJSON *series = cJSON_AddObjectToObject(v1, "series");
        cJSON_AddNumberToObject(series, "count", ev->count);
        cJSON_AddStringToObject(series, "lastObservedTime", time);
    }
    return print_and_delete(v1);
}

/* time: whole seconds, as metav1.Time. */
static char *core_body(const ms_event_recorder *r, const ms_event *ev, const char *name, const char *time) {
    cJSON *core = cJSON_CreateObject();
    if (!core) return NULL;
    add_head(core, "v1", name, ev->regarding->ns);
    add_ref(core, "involvedObject", ev->regarding);
    cJSON_AddStringToObject(core, "reason", ev->reason);
    cJSON_AddStringToObject(core, "message", ev->note);
    cJSON_AddStringToObject(core, "type", ev->type);
    cJSON_AddNumberToObject(core, "count", ev->count ? ev->count : 1);
    cJSON_AddStringToObject(core, "firstTimestamp", time);
    cJSON_AddStringToObject(core, "lastTimestamp", time);
    cJSON *src = cJSON_AddObjectToObject(core, "source");
    cJSON_AddStringToObject(src, "component", ev->controller ? ev->controller : r->controller);
    return print_and_delete(core);
}

static char *events_path(bool core, const char *ns) {
    ms_buf b = {0};
    ms_buf_printf(&b, "%s/namespaces/%s/events", core ? "/api/v1" : "/apis/events.k8s.io/v1", ns);
    return ms_buf_take(&b);
}

/* The whole Event named `name` into out: events.k8s.io/v1 with the
 * core/v1 fallback, or core/v1 alone. */
static ms_rc build_named(ms_event_recorder *r, const ms_event *ev, const char *name, double wall, ms_event_post *out) {
    char micro[MS_RFC3339_MAX], secs[MS_RFC3339_MAX];
    ms_time_rfc3339(wall, 6, micro, sizeof micro);
    ms_time_rfc3339(wall, 0, secs, sizeof secs);
    const char *ns = ev->regarding->ns;
    char *core_path = events_path(true, ns), *core = core_body(r, ev, name, secs);
    if (r->core_only || atomic_load_explicit(&r->v1_missing, memory_order_relaxed)) {
        out->path = core_path;
        out->body = core;
    } else {
        out->path = events_path(false, ns);
        out->body = v1_body(r, ev, name, micro);
        out->fallback_path = core_path;
        out->fallback_body = core;
        if (!out->fallback_path || !out->fallback_body) goto oom;
    }
    if (!out->path || !out->body) goto oom;
    return MS_OK;
oom:
    ms_event_post_free(out);
    return MS_ENOMEM;
}

ms_rc ms_event_recorder_build(ms_event_recorder *r, const ms_event *ev, double wall, ms_event_post *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s.%llx%04llx", ev->regarding->name, (unsigned long long)(wall * 1e6),
             (unsigned long long)(r->seq++ & 0xffff));
    return build_named(r, ev, out->name, wall, out);
}

ms_rc ms_event_recorder_build_series(ms_event_recorder *r, const ms_event *ev, const char *name, double wall,
                                     ms_event_post *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    bool core = r->core_only || atomic_load_explicit(&r->v1_missing, memory_order_relaxed);
    uint32_t count = ev->count > 1 ? ev->count : 2;
    char when[MS_RFC3339_MAX];
    ms_time_rfc3339(wall, core ? 0 : 6, when, sizeof when);
    ms_buf path = {0}, body = {0};
    ms_buf_printf(&path, "%s/namespaces/%s/events/%s", core ? "/api/v1" : "/apis/events.k8s.io/v1",
                  ev->regarding->ns, name);
    if (core) ms_buf_printf(&body, "{\"count\":%u,\"lastTimestamp\":\"%s\"}", count, when);
    else ms_buf_printf(&body, "{\"series\":{\"count\":%u,\"lastObservedTime\":\"%s\"}}", count, when);
    /* The fallback: the whole Event again, its series said (count > 1). */
    ms_event again = *ev;
    again.count = count;
    ms_event_post whole = {0};
    ms_rc rc = build_named(r, &again, name, wall, &whole);
    if (rc != MS_OK || path.failed || body.failed) {
        ms_buf_free(&path);
        ms_buf_free(&body);
        return MS_ENOMEM;
    }
    out->path = ms_buf_take(&path);
    out->body = ms_buf_take(&body);
    out->method = "PATCH";
    out->series = true;
    out->fallback_path = whole.path;
    out->fallback_body = whole.body;
    /* a v1 build's own core/v1 fallback is not needed: the series began
     * on this server, in this form */
    free(whole.fallback_path);
    free(whole.fallback_body);
    return MS_OK;
}

static void answered(const ms_event_send_options *o, ms_rc rc, const ms_kube_response *resp) {
    if (o && o->answered) o->answered(o->ctx, rc == MS_OK ? resp->status : 0);
}

ms_rc ms_event_recorder_send(ms_event_recorder *r, ms_kube_client *c, const ms_event_post *p,
                             const ms_event_send_options *o, ms_kube_response *resp, ms_error *err) {
    bool patch = p->method && strcmp(p->method, "PATCH") == 0;
    ms_kube_request rq = {.method = p->method ? p->method : "POST", .path = p->path, .body = p->body,
                          .body_len = strlen(p->body), .timeout = o ? o->timeout : 0,
                          .cancel = o ? o->cancel : NULL,
                          .content_type = patch ? "application/strategic-merge-patch+json" : NULL};
    ms_rc rc = ms_kube_do(c, &rq, resp, err);
    answered(o, rc, resp);
    if (rc != MS_OK || resp->status != 404 || !p->fallback_path) return rc;
    /* A series whose Event is gone is posted anew; any other 404 means no
     * events.k8s.io/v1 on this server (before 1.19): core/v1 from now on. */
    if (!p->series) atomic_store_explicit(&r->v1_missing, true, memory_order_relaxed);
    ms_kube_response_free(resp);
    rq.method = "POST";
    rq.content_type = NULL;
    rq.path = p->fallback_path;
    rq.body = p->fallback_body;
    rq.body_len = strlen(p->fallback_body);
    rc = ms_kube_do(c, &rq, resp, err);
    answered(o, rc, resp);
    return rc;
}
