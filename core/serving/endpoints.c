/* The metrics port's answers. See serving/endpoints.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "serving/endpoints.h"

/* /healthz fails once the scheduler loop has not come round for this long. */
#define HEARTBEAT_MAX_AGE 10.0

struct ms_endpoints {
    pthread_mutex_t mu;
    const ms_metrics_registry *registry;
    double heartbeat;
    bool ready;
    char unready[768];             /* ms_endpoints_set_unready_reason */
    char *configz;                 /* /configz's answer; NULL: none yet */
};

ms_endpoints *ms_endpoints_new(const ms_metrics_registry *registry) {
    ms_endpoints *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    pthread_mutex_init(&e->mu, NULL);
    e->registry = registry;
    return e;
}

void ms_endpoints_free(ms_endpoints *e) {
    if (!e) return;
    free(e->configz);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

void ms_endpoints_heartbeat(ms_endpoints *e, double now) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->heartbeat = now;
    pthread_mutex_unlock(&e->mu);
}

bool ms_endpoints_healthy(ms_endpoints *e, double now, double max_age) {
    pthread_mutex_lock(&e->mu);
    bool ok = e->heartbeat > 0 && now - e->heartbeat <= max_age;
    pthread_mutex_unlock(&e->mu);
    return ok;
}

void ms_endpoints_set_ready(ms_endpoints *e, bool ready) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->ready = ready;
    pthread_mutex_unlock(&e->mu);
}

void ms_endpoints_set_unready_reason(ms_endpoints *e, const char *why) {
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    snprintf(e->unready, sizeof e->unready, "%s", why ? why : "");
    pthread_mutex_unlock(&e->mu);
}

bool ms_endpoints_set_configz(ms_endpoints *e, const char *json) {
    char *copy = json ? strdup(json) : NULL;
    if (json && !copy) return false;
    pthread_mutex_lock(&e->mu);
    char *old = e->configz;
    e->configz = copy;
    pthread_mutex_unlock(&e->mu);
    free(old);
    return true;
}

/* Ready, or a malloc'd line saying why not. */
static bool is_ready(ms_endpoints *e, char **why) {
    char line[sizeof e->unready + 2];
    pthread_mutex_lock(&e->mu);
    bool ok = e->ready && !e->unready[0];
    snprintf(line, sizeof line, "%s\n", !e->ready ? "informers not synced" : e->unready);
    pthread_mutex_unlock(&e->mu);
    *why = ok ? NULL : strdup(line);
    return ok;
}

/* /configz: a copy of the configuration's JSON, 404 before there is one. */
static void serve_configz(ms_endpoints *e, ms_http_answer *out) {
    pthread_mutex_lock(&e->mu);
    out->body = e->configz ? strdup(e->configz) : NULL;
    bool have = e->configz != NULL;
    pthread_mutex_unlock(&e->mu);
    if (!have) {
        out->status = 404;
        out->body = strdup("not found\n");
        return;
    }
    out->status = out->body ? 200 : 500;
    if (out->body) {
        out->len = strlen(out->body);
        out->content_type = "application/json";
    }
}

static void serve_metrics(const ms_metrics_registry *registry, ms_http_answer *out) {
    out->body = ms_metrics_registry_render(registry, &out->len);
    out->status = out->body ? 200 : 500;
    if (out->body) out->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

void ms_endpoints_serve(void *ctx, const char *path, ms_http_answer *out) {
    ms_endpoints *e = ctx;
    if (strcmp(path, "/metrics") == 0) {
        serve_metrics(e->registry, out);
    } else if (strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0) {
        bool ok = ms_endpoints_healthy(e, ms_clock_monotonic(), HEARTBEAT_MAX_AGE);
        out->status = ok ? 200 : 500;
        /* upstream's healthz answer, byte for byte */
        out->body = strdup(ok ? "ok" : "scheduler loop stalled\n");
        out->nosniff = true;
    } else if (strcmp(path, "/configz") == 0) {
        serve_configz(e, out);
    } else if (strcmp(path, "/readyz") == 0) {
        char *why;
        bool ok = is_ready(e, &why);
        out->status = ok ? 200 : 503;
        out->body = ok ? strdup("ok\n") : why;
    } else {
        out->status = 404;
        out->body = strdup("not found\n");
    }
}

void ms_endpoints_serve_registry(void *ctx, const char *path, ms_http_answer *out) {
    if (strcmp(path, "/metrics") == 0) {
        serve_metrics(ctx, out);
        return;
    }
    bool health = strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0 || strcmp(path, "/readyz") == 0;
    out->status = health ? 200 : 404;
    out->body = strdup(health ? "ok" : "404 page not found\n");
    out->len = out->body ? strlen(out->body) : 0;
    out->content_type = "text/plain; charset=utf-8";
}
