#include "testutil.h"

#include <cjson/cJSON.h>
#include <stdatomic.h>

#include "fake_api.h"
#include "client/event_recorder.h"

static const ms_logger quiet = {.level = -1};

/* 2023-11-14T22:13:20.123456Z */
#define WALL 1700000000.123456

static const ms_object_ref pod = {"v1", "Pod", "team-a", "web-1", "uid-1"};
static const ms_object_ref preemptor = {"v1", "Pod", "team-b", "big", "uid-2"};

static ms_event_recorder *recorder(bool core_only) {
    ms_event_recorder_options o = {.controller = "default-scheduler", .instance = "moonsched",
                                   .core_only = core_only};
    ms_event_recorder *r = ms_event_recorder_new(&o);
    assert_non_null(r);
    return r;
}

/* One Event built, its bodies parsed. */
typedef struct built {
    ms_event_recorder *r;
    ms_event_post p;
    cJSON *body, *fallback;
} built;

static void build(built *b, bool core_only, const ms_event *ev) {
    b->r = recorder(core_only);
    assert_int_equal(ms_event_recorder_build(b->r, ev, WALL, &b->p), MS_OK);
    b->body = cJSON_Parse(b->p.body);
    assert_non_null(b->body);
    b->fallback = b->p.fallback_body ? cJSON_Parse(b->p.fallback_body) : NULL;
}

static void built_free(built *b) {
    cJSON_Delete(b->body);
    cJSON_Delete(b->fallback);
    ms_event_post_free(&b->p);
    ms_event_recorder_free(b->r);
}

static const char *str_at(const cJSON *obj, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_at(const cJSON *obj, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void assert_ref(const cJSON *ev, const char *field, const ms_object_ref *o) {
    assert_string_equal(str_at(ev, field, "apiVersion"), o->api_version);
    assert_string_equal(str_at(ev, field, "kind"), o->kind);
    assert_string_equal(str_at(ev, field, "namespace"), o->ns);
    assert_string_equal(str_at(ev, field, "name"), o->name);
    if (o->uid && o->uid[0]) assert_string_equal(str_at(ev, field, "uid"), o->uid);
    else assert_null(str_at(ev, field, "uid"));
}

/* events.k8s.io/v1 first, with everything upstream's recorder writes, and
 * the core/v1 form alongside. */
static void test_build_v1_with_fallback(void **state) {
    (void)state;
    ms_event ev = {.regarding = &pod, .related = &preemptor, .type = "Normal", .reason = "Preempted",
                   .action = "Preempting", .note = "Preempted by team-b/big on node n1"};
    built b;
    build(&b, false, &ev);
    assert_string_equal(b.p.path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    assert_string_equal(b.p.fallback_path, "/api/v1/namespaces/team-a/events");

    const cJSON *v1 = b.body;
    assert_string_equal(str_at(v1, "apiVersion", NULL), "events.k8s.io/v1");
    assert_string_equal(str_at(v1, "kind", NULL), "Event");
    assert_string_equal(str_at(v1, "metadata", "namespace"), "team-a");
    assert_int_equal(strncmp(str_at(v1, "metadata", "name"), "web-1.", 6), 0);
    assert_string_equal(str_at(v1, "eventTime", NULL), "2023-11-14T22:13:20.123456Z");
    assert_string_equal(str_at(v1, "reportingController", NULL), "default-scheduler");
    assert_string_equal(str_at(v1, "reportingInstance", NULL), "moonsched");
    assert_string_equal(str_at(v1, "action", NULL), "Preempting");
    assert_string_equal(str_at(v1, "reason", NULL), "Preempted");
    assert_string_equal(str_at(v1, "type", NULL), "Normal");
    assert_string_equal(str_at(v1, "note", NULL), ev.note);
    assert_ref(v1, "regarding", &pod);
    assert_ref(v1, "related", &preemptor);
    assert_null(cJSON_GetObjectItemCaseSensitive(v1, "series"));   /* once */

    const cJSON *core = b.fallback;
    assert_non_null(core);
    assert_string_equal(str_at(core, "apiVersion", NULL), "v1");
    assert_string_equal(str_at(core, "kind", NULL), "Event");
    /* one Event, one name, whichever API takes it */
    assert_string_equal(str_at(core, "metadata", "name"), str_at(v1, "metadata", "name"));
    assert_string_equal(str_at(core, "metadata", "namespace"), "team-a");
    assert_ref(core, "involvedObject", &pod);
    assert_null(cJSON_GetObjectItemCaseSensitive(core, "related"));
    assert_string_equal(str_at(core, "reason", NULL), "Preempted");
    assert_string_equal(str_at(core, "message", NULL), ev.note);
    assert_string_equal(str_at(core, "type", NULL), "Normal");
    assert_true(num_at(core, "count", NULL) == 1);
    assert_string_equal(str_at(core, "firstTimestamp", NULL), "2023-11-14T22:13:20Z");
    assert_string_equal(str_at(core, "lastTimestamp", NULL), "2023-11-14T22:13:20Z");
    assert_string_equal(str_at(core, "source", "component"), "default-scheduler");
    built_free(&b);
}

/* An Event may name its reporter: the pod's profile (run's reporter). */
static void test_build_reporter_per_event(void **state) {
    (void)state;
    ms_event ev = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding",
                   .note = "Successfully assigned team-a/web-1 to n1", .controller = "gpu",
                   .instance = "gpu-host1"};
    built b;
    build(&b, false, &ev);
    assert_string_equal(str_at(b.body, "reportingController", NULL), "gpu");
    assert_string_equal(str_at(b.body, "reportingInstance", NULL), "gpu-host1");
    assert_string_equal(str_at(b.fallback, "source", "component"), "gpu");
    built_free(&b);
}

/* Repeats: a series in events.k8s.io/v1, the count in core/v1. */
static void test_build_series(void **state) {
    (void)state;
    ms_object_ref nouid = pod;
    nouid.uid = "";
    ms_event ev = {.regarding = &nouid, .type = "Warning", .reason = "FailedScheduling", .action = "Scheduling",
                   .note = "0/3 nodes are available", .count = 7};
    built b;
    build(&b, false, &ev);
    const cJSON *v1 = b.body, *core = b.fallback;
    assert_true(num_at(v1, "series", "count") == 7);
    assert_string_equal(str_at(v1, "series", "lastObservedTime"), "2023-11-14T22:13:20.123456Z");
    assert_null(cJSON_GetObjectItemCaseSensitive(v1, "related"));
    assert_ref(v1, "regarding", &nouid);
    assert_true(num_at(core, "count", NULL) == 7);
    assert_ref(core, "involvedObject", &nouid);
    built_free(&b);
}

/* Events made in the same microsecond still get names of their own. */
static void test_build_names_unique(void **state) {
    (void)state;
    ms_event_recorder *r = recorder(false);
    ms_event ev = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding", .note = "x"};
    ms_event_post a, b;
    assert_int_equal(ms_event_recorder_build(r, &ev, WALL, &a), MS_OK);
    assert_int_equal(ms_event_recorder_build(r, &ev, WALL, &b), MS_OK);
    cJSON *ja = cJSON_Parse(a.body), *jb = cJSON_Parse(b.body);
    assert_string_not_equal(str_at(ja, "metadata", "name"), str_at(jb, "metadata", "name"));
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    ms_event_post_free(&a);
    ms_event_post_free(&b);
    ms_event_recorder_free(r);
}

/* core_only (leader election's LeaseLock events): core/v1, no fallback. */
static void test_build_core_only(void **state) {
    (void)state;
    ms_object_ref lease = {"coordination.k8s.io/v1", "Lease", "kube-system", "kube-scheduler", NULL};
    ms_event ev = {.regarding = &lease, .type = "Normal", .reason = "LeaderElection", .note = "me became leader"};
    built b;
    build(&b, true, &ev);
    assert_string_equal(b.p.path, "/api/v1/namespaces/kube-system/events");
    assert_null(b.p.fallback_path);
    assert_null(b.p.fallback_body);
    const cJSON *core = b.body;
    assert_string_equal(str_at(core, "apiVersion", NULL), "v1");
    assert_ref(core, "involvedObject", &lease);
    assert_int_equal(strncmp(str_at(core, "metadata", "name"), "kube-scheduler.", 15), 0);
    assert_string_equal(str_at(core, "message", NULL), "me became leader");
    built_free(&b);
}

/* A repeat of a posted Event: a strategic merge PATCH of its series
 * (events.k8s.io/v1) or of count and lastTimestamp (core/v1), the whole
 * Event with its series as the fallback for a 404. */
static void test_build_series_update(void **state) {
    (void)state;
    ms_event ev = {.regarding = &pod, .type = "Warning", .reason = "FailedScheduling", .action = "Scheduling",
                   .note = "0/3 nodes are available", .count = 5};
    for (int core = 0; core < 2; core++) {
        ms_event_recorder *r = recorder(core);
        ms_event_post p;
        assert_int_equal(ms_event_recorder_build_series(r, &ev, "web-1.17f", WALL, &p), MS_OK);
        assert_string_equal(p.method, "PATCH");
        assert_true(p.series);
        assert_string_equal(p.name, "web-1.17f");
        assert_string_equal(p.path, core ? "/api/v1/namespaces/team-a/events/web-1.17f"
                                         : "/apis/events.k8s.io/v1/namespaces/team-a/events/web-1.17f");
        cJSON *body = cJSON_Parse(p.body), *whole = cJSON_Parse(p.fallback_body);
        if (core) {
            assert_true(num_at(body, "count", NULL) == 5);
            assert_string_equal(str_at(body, "lastTimestamp", NULL), "2023-11-14T22:13:20Z");
            assert_string_equal(p.fallback_path, "/api/v1/namespaces/team-a/events");
            assert_true(num_at(whole, "count", NULL) == 5);
        } else {
            assert_true(num_at(body, "series", "count") == 5);
            assert_string_equal(str_at(body, "series", "lastObservedTime"), "2023-11-14T22:13:20.123456Z");
            assert_string_equal(p.fallback_path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
            assert_true(num_at(whole, "series", "count") == 5);
            assert_string_equal(str_at(whole, "note", NULL), "0/3 nodes are available");
        }
        assert_null(cJSON_GetObjectItemCaseSensitive(body, core ? "message" : "note"));
        assert_string_equal(str_at(whole, "metadata", "name"), "web-1.17f");
        cJSON_Delete(body);
        cJSON_Delete(whole);
        ms_event_post_free(&p);
        ms_event_recorder_free(r);
    }
}

/* ---- posting, against a fake apiserver ---------------------------------------- */

typedef struct server {
    bool v1;                       /* serves events.k8s.io/v1 */
    int status;                    /* answer to an accepted Event; 0: 201 */
} server;

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    const server *s = ctx;
    /* no Event was posted under any name: updates find none */
    if (strcmp(req->method, "PATCH") == 0) return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    if (strcmp(req->method, "POST") != 0) return fh_reply(fd, 405, NULL, "{}");
    if (strncmp(req->path, "/apis/events.k8s.io/v1/", 23) == 0 && !s->v1)
        return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    return fh_reply(fd, s->status ? s->status : 201, NULL, "{}");
}

typedef struct fixture {
    server s;
    fa_api api;
    long answers[8];
    atomic_int nanswers;
} fixture;

static void note_answer(void *ctx, long status) {
    fixture *f = ctx;
    int i = atomic_fetch_add(&f->nanswers, 1);
    if (i < 8) f->answers[i] = status;
}

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    fa_start(&f->api, handler, &f->s, &quiet);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    fa_stop(&f->api);
    free(f);
    return 0;
}

static ms_rc send_one(fixture *f, ms_event_recorder *r, long *status) {
    ms_event ev = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding", .note = "x"};
    ms_event_post p;
    assert_int_equal(ms_event_recorder_build(r, &ev, WALL, &p), MS_OK);
    ms_event_send_options o = {.answered = note_answer, .ctx = f};
    ms_kube_response resp;
    ms_error err = {0};
    ms_rc rc = ms_event_recorder_send(r, f->api.c, &p, &o, &resp, &err);
    *status = resp.status;
    ms_kube_response_free(&resp);
    ms_event_post_free(&p);
    return rc;
}

/* A series update that finds no Event posts it anew, and the recorder
 * keeps events.k8s.io/v1 (that 404 was not about the API group). */
static void test_send_series_gone(void **state) {
    fixture *f = *state;
    f->s.v1 = true;
    ms_event_recorder *r = recorder(false);
    ms_event ev = {.regarding = &pod, .type = "Warning", .reason = "FailedScheduling", .action = "Scheduling",
                   .note = "x", .count = 2};
    ms_event_post p;
    assert_int_equal(ms_event_recorder_build_series(r, &ev, "web-1.1", WALL, &p), MS_OK);
    ms_kube_response resp;
    ms_error err = {0};
    assert_int_equal(ms_event_recorder_send(r, f->api.c, &p, NULL, &resp, &err), MS_OK);
    assert_int_equal(resp.status, 201);
    ms_kube_response_free(&resp);
    ms_event_post_free(&p);
    assert_int_equal(fh_nreqs(f->api.srv), 2);
    assert_string_equal(f->api.srv->reqs[0].method, "PATCH");
    assert_string_equal(f->api.srv->reqs[1].method, "POST");
    assert_string_equal(f->api.srv->reqs[1].path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    long status;
    assert_int_equal(send_one(f, r, &status), MS_OK);   /* still v1 */
    assert_string_equal(f->api.srv->reqs[2].path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    ms_event_recorder_free(r);
}

static void test_send_v1(void **state) {
    fixture *f = *state;
    f->s.v1 = true;
    ms_event_recorder *r = recorder(false);
    long status;
    assert_int_equal(send_one(f, r, &status), MS_OK);
    assert_int_equal(status, 201);
    assert_int_equal(fh_nreqs(f->api.srv), 1);
    assert_string_equal(f->api.srv->reqs[0].path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    assert_int_equal(atomic_load(&f->nanswers), 1);
    assert_int_equal(f->answers[0], 201);
    ms_event_recorder_free(r);
}

/* A server without events.k8s.io/v1: the 404 sends the core/v1 form, and
 * the recorder builds core/v1 only from then on. Every answer is told. */
static void test_send_falls_back_to_core(void **state) {
    fixture *f = *state;
    ms_event_recorder *r = recorder(false);
    long status;
    assert_int_equal(send_one(f, r, &status), MS_OK);
    assert_int_equal(status, 201);
    assert_int_equal(fh_nreqs(f->api.srv), 2);
    assert_string_equal(f->api.srv->reqs[0].path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    assert_string_equal(f->api.srv->reqs[1].path, "/api/v1/namespaces/team-a/events");
    assert_non_null(strstr(f->api.srv->reqs[1].body, "\"involvedObject\""));
    assert_int_equal(atomic_load(&f->nanswers), 2);
    assert_int_equal(f->answers[0], 404);
    assert_int_equal(f->answers[1], 201);

    ms_event ev = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding", .note = "y"};
    ms_event_post p;
    assert_int_equal(ms_event_recorder_build(r, &ev, WALL, &p), MS_OK);
    assert_string_equal(p.path, "/api/v1/namespaces/team-a/events");
    assert_null(p.fallback_path);
    ms_event_post_free(&p);
    assert_int_equal(send_one(f, r, &status), MS_OK);
    assert_int_equal(fh_nreqs(f->api.srv), 3);
    assert_string_equal(f->api.srv->reqs[2].path, "/api/v1/namespaces/team-a/events");
    ms_event_recorder_free(r);
}

/* Another refusal is the caller's to report; it does not switch APIs. */
static void test_send_failure_no_fallback(void **state) {
    fixture *f = *state;
    f->s.v1 = true;
    f->s.status = 403;
    ms_event_recorder *r = recorder(false);
    long status;
    assert_int_equal(send_one(f, r, &status), MS_OK);
    assert_int_equal(status, 403);
    assert_int_equal(fh_nreqs(f->api.srv), 1);
    ms_event ev = {.regarding = &pod, .type = "Normal", .reason = "Scheduled", .action = "Binding", .note = "y"};
    ms_event_post p;
    assert_int_equal(ms_event_recorder_build(r, &ev, WALL, &p), MS_OK);
    assert_string_equal(p.path, "/apis/events.k8s.io/v1/namespaces/team-a/events");
    ms_event_post_free(&p);
    ms_event_recorder_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_v1_with_fallback),
        cmocka_unit_test(test_build_reporter_per_event),
        cmocka_unit_test(test_build_series),
        cmocka_unit_test(test_build_series_update),
        cmocka_unit_test(test_build_names_unique),
        cmocka_unit_test(test_build_core_only),
        cmocka_unit_test_setup_teardown(test_send_v1, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_send_series_gone, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_send_falls_back_to_core, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_send_failure_no_fallback, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
