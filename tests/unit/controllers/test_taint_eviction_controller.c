/* The taint eviction controller's requests against a scripted server:
 * on a 1.27 server the Event, the DisruptionTarget condition and the
 * DELETE with the uid precondition, in that order; a 404 ends it; 5xx is
 * retried; a standby deletes nothing until it leads; a cancelled deletion
 * posts its Event; on a 1.20 server no condition. */
#include "testutil.h"

#include <stdatomic.h>

#include "fake_api.h"
#include "fixtures.h"
#include "controllers/taint_eviction_controller.h"

static const ms_logger quiet = {.level = -1};

typedef struct server_state {
    const char *minor;
    atomic_int flaky;              /* 500s still to give for pods/flaky */
} server_state;

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    server_state *s = ctx;
    char body[128];
    if (strcmp(req->path, "/version") == 0) {
        snprintf(body, sizeof body, "{\"major\":\"1\",\"minor\":\"%s\",\"gitVersion\":\"v1.%s.0\"}", s->minor,
                 s->minor);
        return fh_reply(fd, 200, NULL, body);
    }
    if (strcmp(req->method, "POST") == 0) return fh_reply(fd, 201, NULL, "{}");
    if (strcmp(req->method, "PATCH") == 0) return fh_reply(fd, 200, NULL, "{}");
    if (strstr(req->path, "/pods/gone")) return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    if (strstr(req->path, "/pods/flaky") && atomic_fetch_sub(&s->flaky, 1) > 0)
        return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"etcd is sad\"}");
    return fh_reply(fd, 200, NULL, "{}");
}

typedef struct fixture {
    server_state st;
    fa_api api;
    fx_env env;
    ms_taint_eviction *te;
    atomic_bool leading;
    atomic_int deleted;
} fixture;

static bool is_leading(void *ctx) { return atomic_load(&((fixture *)ctx)->leading); }
static void on_deleted(void *ctx, double latency) {
    (void)latency;
    atomic_fetch_add(&((fixture *)ctx)->deleted, 1);
}

static fixture *start(const char *minor, bool leading) {
    fixture *f = calloc(1, sizeof *f);
    f->st.minor = minor;
    atomic_store(&f->leading, leading);
    fa_start(&f->api, handler, &f->st, &quiet);
    ms_error err = {0};
    fx_env_init(&f->env);
    ms_taint_eviction_options o = {.client = f->api.c, .in = f->env.in, .log = &quiet, .workers = 2,
                                   .leading = is_leading, .leading_ctx = f, .deleted = on_deleted,
                                   .deleted_ctx = f};
    if (ms_taint_eviction_start(&o, &f->te, &err) != MS_OK) fail_msg("start: %s", err.msg);
    return f;
}

static void stop(fixture *f) {
    ms_taint_eviction_stop(f->te, 1);
    fa_stop(&f->api);
    fx_env_free(&f->env);
    free(f);
}

static void observe_node(fixture *f, const char *json) {
    ms_node *n = fx_node(&f->env.d, json);
    ms_taint_eviction_observe(f->te, &(ms_delta){.type = MS_DELTA_UPDATE, .kind = MS_KIND_NODE, .node = n});
    ms_node_unref(n);
}

/* A pod named name (uid "uid-NAME") bound to n1; tol: a tolerations JSON array or NULL. */
static void observe_pod(fixture *f, const char *name, const char *tol) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"uid-%s\"},"
             "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\"}]%s%s}}",
             name, name, tol ? ",\"tolerations\":" : "", tol ? tol : "");
    ms_pod *p = fx_pod(&f->env.d, json);
    ms_taint_eviction_observe(f->te, &(ms_delta){.type = MS_DELTA_ADD, .kind = MS_KIND_POD, .pod = p});
    ms_pod_unref(p);
}

#define TAINTED "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoExecute\"}]}}"
#define UNTAINTED "{\"metadata\":{\"name\":\"n1\"}}"

/* Index of the first recorded request matching method and path part
 * (and body part), from `from`; -1 when none within `wait` seconds. */
static int find_req(fixture *f, int from, const char *method, const char *path, const char *body, double wait) {
    double until = fh_now() + wait;
    do {
        pthread_mutex_lock(&f->api.srv->mu);
        for (int i = from; i < f->api.srv->nreqs; i++) {
            const fh_request *r = &f->api.srv->reqs[i];
            if (strcmp(r->method, method) == 0 && strstr(r->path, path) &&
                (!body || (r->body && strstr(r->body, body)))) {
                pthread_mutex_unlock(&f->api.srv->mu);
                return i;
            }
        }
        pthread_mutex_unlock(&f->api.srv->mu);
        fh_sleep(0.01);
    } while (fh_now() < until);
    return -1;
}

static void test_event_condition_delete(void **state) {
    (void)state;
    fixture *f = start("27", true);
    observe_node(f, TAINTED);
    observe_pod(f, "ok-1", NULL);
    int ev = find_req(f, 0, "POST", "/api/v1/namespaces/default/events",
                      "\"message\":\"Marking for deletion Pod default/ok-1\"", 2);
    assert_true(ev >= 0);
    int patch = find_req(f, 0, "PATCH", "/api/v1/namespaces/default/pods/ok-1/status",
                         "\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"DeletionByTaintManager\"", 2);
    int del = find_req(f, 0, "DELETE", "/api/v1/namespaces/default/pods/ok-1",
                       "\"preconditions\":{\"uid\":\"uid-ok-1\"}", 2);
    assert_true(patch >= 0 && del > patch);
    assert_true(find_req(f, ev, "POST", "/events", "\"reason\":\"TaintManagerEviction\"", 0) == ev);
    assert_true(find_req(f, ev, "POST", "/events", "\"component\":\"taint-eviction-controller\"", 0) == ev);
    for (int i = 0; i < 100 && atomic_load(&f->deleted) < 1; i++) fh_sleep(0.01);
    assert_int_equal(atomic_load(&f->deleted), 1);
    /* gone: no deletion counted; flaky: retried until it goes */
    atomic_store(&f->st.flaky, 2);
    observe_pod(f, "gone-1", NULL);
    observe_pod(f, "flaky-1", NULL);
    assert_true(find_req(f, 0, "DELETE", "/pods/gone-1", NULL, 2) >= 0);
    for (int i = 0; i < 200 && atomic_load(&f->deleted) < 2; i++) fh_sleep(0.01);
    assert_int_equal(atomic_load(&f->deleted), 2);
    int d1 = find_req(f, 0, "DELETE", "/pods/flaky-1", NULL, 0);
    int d2 = find_req(f, d1 + 1, "DELETE", "/pods/flaky-1", NULL, 0);
    assert_true(d1 >= 0 && find_req(f, d2 + 1, "DELETE", "/pods/flaky-1", NULL, 0) > d2);
    ms_taint_eviction_stats s;
    ms_taint_eviction_stats_get(f->te, &s);
    assert_int_equal(s.deletions, 2);
    assert_int_equal(s.gone, 1);
    stop(f);
}

static void test_standby_then_leader_and_cancel(void **state) {
    (void)state;
    fixture *f = start("20", false);
    observe_node(f, TAINTED);
    observe_pod(f, "wait-1", NULL);
    observe_pod(f, "late-1", "[{\"key\":\"k\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
                             "\"tolerationSeconds\":30}]");
    /* a standby: nothing deleted, nothing posted */
    assert_int_equal(find_req(f, 0, "DELETE", "/pods/", NULL, 0.4), -1);
    atomic_store(&f->leading, true);
    int del = find_req(f, 0, "DELETE", "/pods/wait-1", NULL, 1);
    assert_true(del >= 0);
    /* 1.20: no condition */
    assert_int_equal(find_req(f, 0, "PATCH", "/status", NULL, 0), -1);
    /* the taint goes: late-1's deletion is cancelled, with its Event */
    observe_node(f, UNTAINTED);
    assert_true(find_req(f, 0, "POST", "/events", "\"message\":\"Cancelling deletion of Pod default/late-1\"", 2) >= 0);
    assert_int_equal(find_req(f, 0, "DELETE", "/pods/late-1", NULL, 0), -1);
    stop(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_condition_delete),
        cmocka_unit_test(test_standby_then_leader_and_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
