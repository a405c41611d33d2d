#include "testutil.h"

#include <poll.h>
#include <stdatomic.h>

#include "fake_api.h"
#include "metrics_states.h"
#include "run/poster.h"

static const ms_logger quiet = {.level = -1};

/* A fake apiserver without events.k8s.io/v1 that can hold the first
 * request, so that the rest queue up behind it. */
typedef struct server {
    atomic_bool hold;
    atomic_int seen;
} server;

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    server *s = ctx;
    if (atomic_fetch_add(&s->seen, 1) == 0)
        while (atomic_load(&s->hold)) fh_sleep(0.005);
    if (strncmp(req->path, "/apis/events.k8s.io/", 20) == 0) return fh_reply(fd, 404, NULL, "{}");
    if (strstr(req->path, "/events")) return fh_reply(fd, 201, NULL, "{}");
    if (strstr(req->path, "fail"))
        return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"no\",\"code\":500}");
    if (strstr(req->path, "gone"))
        return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"message\":\"not found\",\"code\":404}");
    return fh_reply(fd, 200, NULL, "{}");
}

typedef struct fixture {
    server s;
    fa_api api;
    ms_event_recorder *events;
    ms_api_metrics *metrics;
    ms_poster *p;
} fixture;

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    fa_start(&f->api, handler, &f->s, &quiet);
    ms_event_recorder_options ro = {.controller = "default-scheduler", .instance = "moonsched"};
    f->events = ms_event_recorder_new(&ro);
    f->metrics = ms_api_metrics_new();
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_poster_free(f->p);
    ms_event_recorder_free(f->events);
    ms_api_metrics_free(f->metrics);
    fa_stop(&f->api);
    free(f);
    return 0;
}

static void start(fixture *f, uint32_t backlog) {
    ms_poster_options o = {.client = f->api.c, .events = f->events, .metrics = f->metrics, .log = &quiet,
                           .backlog = backlog};
    ms_error err = {0};
    if (ms_poster_start(&o, &f->p, &err) != MS_OK) fail_msg("poster: %s", err.msg);
}

static void report(fixture *f, const char *method, const char *path, bool urgent) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "path", path);
    const char *ctype = strcmp(method, "PATCH") == 0 ? "application/merge-patch+json" : NULL;
    ms_poster_send(f->p, method, strdup(path), b, ctype, urgent);
}

/* The first request is on the wire and held: the rest wait in the queue. */
static void hold_first(fixture *f) {
    atomic_store(&f->s.hold, true);
    report(f, "PATCH", "/first/status", false);
    double end = fh_now() + 2;
    while (atomic_load(&f->s.seen) == 0 && fh_now() < end) fh_sleep(0.002);
    assert_int_equal(atomic_load(&f->s.seen), 1);
}

static void assert_paths(fixture *f, const char *const *want, int n) {
    assert_int_equal(fh_nreqs(f->api.srv), n);
    for (int i = 0; i < n; i++)
        if (strcmp(f->api.srv->reqs[i].path, want[i]) != 0)
            fail_msg("request %d: %s, want %s", i, f->api.srv->reqs[i].path, want[i]);
}

/* Deletions and nominations overtake the waiting patches and Events; each
 * lane keeps its order; stopping sends what is queued. */
static void test_urgent_first(void **state) {
    fixture *f = *state;
    start(f, 0);
    hold_first(f);
    report(f, "PATCH", "/a/status", false);
    report(f, "PATCH", "/b/status", false);
    report(f, "DELETE", "/victim", true);
    report(f, "PATCH", "/nominated/status", true);
    atomic_store(&f->s.hold, false);
    ms_poster_stop(f->p);
    const char *want[] = {"/first/status", "/victim", "/nominated/status", "/a/status", "/b/status"};
    assert_paths(f, want, 5);
    assert_string_equal(f->api.srv->reqs[1].method, "DELETE");
    assert_string_equal(f->api.srv->reqs[1].body, "{\"path\":\"/victim\"}");
    char ct[64];
    assert_non_null(fh_header(&f->api.srv->reqs[2], "Content-Type", ct, sizeof ct));
    assert_string_equal(ct, "application/merge-patch+json");
    ms_poster_stats st;
    ms_poster_stats_get(f->p, &st);
    assert_int_equal(st.status_patches, 4);   /* deletions are not patches */
    assert_int_equal(st.events_suppressed, 0);
}

/* A full backlog drops ordinary reports (counted), never urgent ones. */
static void test_backlog_drops_ordinary(void **state) {
    fixture *f = *state;
    start(f, 2);
    hold_first(f);
    report(f, "PATCH", "/a/status", false);
    report(f, "PATCH", "/b/status", false);
    report(f, "PATCH", "/c/status", false);   /* dropped */
    ms_event_post ev = {.path = strdup("/api/v1/namespaces/x/events"), .body = strdup("{}")};
    ms_poster_event(f->p, &ev);                /* dropped, its strings freed */
    assert_null(ev.path);
    report(f, "DELETE", "/victim", true);
    ms_poster_suppressed(f->p);                /* the reporter's own count */
    atomic_store(&f->s.hold, false);
    ms_poster_stop(f->p);
    const char *want[] = {"/first/status", "/victim", "/a/status", "/b/status"};
    assert_paths(f, want, 4);
    ms_poster_stats st;
    ms_poster_stats_get(f->p, &st);
    assert_int_equal(st.events_suppressed, 3);
    assert_int_equal(st.events_posted, 0);
}

/* Events go through the recorder (core/v1 after a 404); refusals are
 * counted and every answer reaches the metrics. */
static void test_events_and_failures(void **state) {
    fixture *f = *state;
    start(f, 0);
    ms_object_ref pod = {"v1", "Pod", "ns", "p", "u"};
    ms_event e = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding", .note = "n"};
    ms_event_post ev;
    assert_int_equal(ms_event_recorder_build(f->events, &e, 1700000000, &ev), MS_OK);
    ms_poster_event(f->p, &ev);
    report(f, "PATCH", "/fail/status", false);
    report(f, "PATCH", "/ok/status", false);
    ms_poster_stop(f->p);
    const char *want[] = {"/apis/events.k8s.io/v1/namespaces/ns/events", "/api/v1/namespaces/ns/events",
                          "/fail/status", "/ok/status"};
    assert_paths(f, want, 4);
    ms_poster_stats st;
    ms_poster_stats_get(f->p, &st);
    assert_int_equal(st.events_posted, 1);
    assert_int_equal(st.events_failed, 0);
    assert_int_equal(st.status_patches, 1);
    size_t len;
    char *text = metrics_render_one(ms_api_metrics_collect, f->metrics, &len);
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"404\"} 1\n"));
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"201\"} 1\n"));
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"500\"} 1\n"));
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"200\"} 1\n"));
    free(text);
}

/* A victim's request, for victim uid hash `victim`. */
static ms_poster_request victim_request(const char *method, const char *path, uint64_t victim) {
    const char *ctype = strcmp(method, "PATCH") == 0 ? "application/strategic-merge-patch+json" : NULL;
    return (ms_poster_request){method, strdup(path), cJSON_CreateObject(), ctype, victim};
}

static void collect(void *ctx, uint64_t victim) {
    uint64_t *got = ctx;
    got[++got[0]] = victim;
}

/* A victim whose DisruptionTarget patch or DELETE fails is handed back,
 * in order, so that the scheduler can clear its mark at once; one the
 * server says is gone (404) is not (its deletion shows in the watch), nor
 * is a request of no victim's. */
static void test_failed_victims_handed_back(void **state) {
    fixture *f = *state;
    start(f, 0);
    ms_poster_request cond = victim_request("PATCH", "/fail/v7/status", 7);
    ms_poster_request del = victim_request("DELETE", "/v7", 7);
    assert_true(ms_poster_send_then(f->p, &cond, &del, true));          /* the patch fails */
    cond = victim_request("PATCH", "/v8/status", 8);
    del = victim_request("DELETE", "/fail/v8", 8);
    assert_true(ms_poster_send_then(f->p, &cond, &del, true));          /* the DELETE fails */
    del = victim_request("DELETE", "/gone/v9", 9);
    assert_true(ms_poster_send_then(f->p, &del, NULL, true));           /* 404: gone */
    del = victim_request("DELETE", "/v10", 10);
    assert_true(ms_poster_send_then(f->p, &del, NULL, true));           /* deleted */
    del = victim_request("DELETE", "/fail/v11", 11);
    assert_true(ms_poster_send_then(f->p, &del, NULL, true));           /* fails alone */
    report(f, "PATCH", "/fail/nobody/status", true);
    ms_poster_stop(f->p);
    const char *want[] = {"/fail/v7/status", "/v8/status", "/fail/v8", "/gone/v9", "/v10", "/fail/v11",
                          "/fail/nobody/status"};
    assert_paths(f, want, 7);
    struct pollfd pfd = {.fd = ms_poster_fd(f->p), .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 0), 1);
    uint64_t got[8] = {0};
    ms_poster_take_failed_victims(f->p, collect, got);
    assert_int_equal(got[0], 3);
    assert_int_equal(got[1], 7);
    assert_int_equal(got[2], 8);
    assert_int_equal(got[3], 11);
    got[0] = 0;
    ms_poster_take_failed_victims(f->p, collect, got);
    assert_int_equal(got[0], 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_urgent_first, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_backlog_drops_ordinary, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_events_and_failures, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_failed_victims_handed_back, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
