#include "testutil.h"

#include <cjson/cJSON.h>

#include "fake_api.h"
#include "fixtures.h"
#include "run/api_reporter.h"

static const ms_logger quiet = {.level = -1};

/* What the fake server refuses (the handler's ctx). */
typedef struct faults {
    bool events_gone;              /* updates of Events answer 404 (expired) */
    bool status_fails;             /* patches of a pod's status answer 422 */
} faults;

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    const faults *fa = ctx;
    if (fa->events_gone && strcmp(req->method, "PATCH") == 0 && strstr(req->path, "/events/"))
        return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    if (fa->status_fails && strcmp(req->method, "PATCH") == 0 && strstr(req->path, "/status"))
        return fh_reply(fd, 422, NULL, "{\"kind\":\"Status\",\"code\":422}");
    return fh_reply(fd, strcmp(req->method, "POST") == 0 ? 201 : 200, NULL, "{}");
}

typedef struct fixture {
    fa_api api;
    fx_env env;
    ms_event_recorder *events;
    ms_poster *poster;
    ms_api_reporter *r;
    ms_pod *pod, *other;
    faults faults;                 /* the handler's ctx */
    bool disruption_conditions;    /* for start() */
    double series_finish;
} fixture;

static ms_pod *pod_named(fixture *f, const char *name) {
    char text[256];
    snprintf(text, sizeof text, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"uid\":\"uid-%s\"},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", name, name);
    return fx_pod(&f->env.d, text);
}

static void start(fixture *f, double interval, double qps) {
    ms_error err = {0};
    ms_poster_options po = {.client = f->api.c, .events = f->events, .log = &quiet};
    if (ms_poster_start(&po, &f->poster, &err) != MS_OK) fail_msg("poster: %s", err.msg);
    ms_api_reporter_options o = {.in = f->env.in, .poster = f->poster, .events = f->events, .log = &quiet,
                                 .event_interval = interval, .event_qps = qps,
                                 .disruption_conditions = f->disruption_conditions,
                                 .series_finish = f->series_finish};
    f->r = ms_api_reporter_new(&o);
    assert_non_null(f->r);
}

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    fa_start(&f->api, handler, &f->faults, &quiet);
    ms_event_recorder_options ro = {.controller = "default-scheduler", .instance = "moonsched"};
    f->events = ms_event_recorder_new(&ro);
    fx_env_init(&f->env);
    f->pod = pod_named(f, "p");
    f->other = pod_named(f, "big");
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_api_reporter_free(f->r);
    ms_poster_free(f->poster);
    ms_event_recorder_free(f->events);
    ms_pod_unref(f->pod);
    ms_pod_unref(f->other);
    fx_env_free(&f->env);
    fa_stop(&f->api);
    free(f);
    return 0;
}

/* Sends what is queued; the requests are then the server's. */
static int flush(fixture *f) {
    ms_poster_stop(f->poster);
    return fh_nreqs(f->api.srv);
}

static cJSON *body(fixture *f, int i) {
    cJSON *b = cJSON_Parse(f->api.srv->reqs[i].body);
    assert_non_null(b);
    return b;
}

static const char *str(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

#define EVENTS "/apis/events.k8s.io/v1/namespaces/team/events"
#define STATUS "/api/v1/namespaces/team/pods/p/status"

/* Request i is a strategic merge patch of p's status: its body (*b, to
 * free) and first condition. */
static const cJSON *status_condition(fixture *f, int i, cJSON **b) {
    assert_string_equal(f->api.srv->reqs[i].method, "PATCH");
    assert_string_equal(f->api.srv->reqs[i].path, STATUS);
    char ct[64];
    assert_non_null(fh_header(&f->api.srv->reqs[i], "Content-Type", ct, sizeof ct));
    assert_string_equal(ct, "application/strategic-merge-patch+json");
    *b = body(f, i);
    return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(*b, "status"), "conditions"), 0);
}

/* The condition is patched when its message changes; FailedScheduling at
 * most once per interval; a bind ends the pod's aggregation. */
static void test_unschedulable_aggregation(void **state) {
    fixture *f = *state;
    start(f, 30, 0);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "0/3 nodes are available");
    ms_api_reporter_unschedulable(f->r, f->pod, false, "0/3 nodes are available");
    ms_api_reporter_unschedulable(f->r, f->pod, false, "0/4 nodes are available");
    assert_int_equal(ms_api_reporter_failed_attempts(f->r, f->pod), 3);
    assert_int_equal(ms_api_reporter_patches_skipped(f->r), 1);
    ms_api_reporter_bound(f->r, f->pod, "node-1");
    assert_int_equal(ms_api_reporter_failed_attempts(f->r, f->pod), 0);
    assert_int_equal(flush(f), 4);

    cJSON *b;
    const cJSON *c = status_condition(f, 0, &b);
    assert_string_equal(str(c, "type", NULL), "PodScheduled");
    assert_string_equal(str(c, "status", NULL), "False");
    assert_string_equal(str(c, "reason", NULL), "Unschedulable");
    assert_string_equal(str(c, "message", NULL), "0/3 nodes are available");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "lastProbeTime")));
    const char *ts = str(c, "lastTransitionTime", NULL);
    assert_int_equal(strlen(ts), 20);          /* 2006-01-02T15:04:05Z */
    assert_int_equal(ts[19], 'Z');
    cJSON_Delete(b);

    assert_string_equal(f->api.srv->reqs[1].path, EVENTS);
    b = body(f, 1);
    assert_string_equal(str(b, "reason", NULL), "FailedScheduling");
    assert_string_equal(str(b, "type", NULL), "Warning");
    assert_string_equal(str(b, "action", NULL), "Scheduling");
    assert_string_equal(str(b, "note", NULL), "0/3 nodes are available");
    assert_string_equal(str(b, "regarding", "uid"), "uid-p");
    assert_null(cJSON_GetObjectItem(b, "series"));
    cJSON_Delete(b);

    assert_string_equal(f->api.srv->reqs[2].path, STATUS);   /* the new message */
    b = body(f, 3);
    assert_string_equal(str(b, "reason", NULL), "Scheduled");
    assert_string_equal(str(b, "action", NULL), "Binding");
    assert_string_equal(str(b, "note", NULL), "Successfully assigned team/p to node-1");
    cJSON_Delete(b);
    ms_poster_stats st;
    ms_poster_stats_get(f->poster, &st);
    assert_int_equal(st.events_suppressed, 2);   /* the two reports inside the interval */
    assert_int_equal(st.events_posted, 2);
}

/* A gated pod: PodScheduled=False, reason SchedulingGated, the API
 * server's message, patched once and no Event; not at all when the pod
 * already carries it (a 1.30 server sets it on create). */
static void test_gated_condition(void **state) {
    fixture *f = *state;
    start(f, 30, 0);
    ms_api_reporter_gated(f->r, f->pod, "waiting for scheduling gates: [a]");
    ms_api_reporter_gated(f->r, f->pod, "waiting for scheduling gates: [a]");
    ms_pod *said = fx_pod(&f->env.d, "{\"metadata\":{\"name\":\"big\",\"namespace\":\"team\",\"uid\":\"uid-big\"},"
                                     "\"spec\":{\"schedulingGates\":[{\"name\":\"a\"}],\"containers\":[{\"name\":\"c\"}]},"
                                     "\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
                                     "\"reason\":\"SchedulingGated\"}]}}");
    ms_api_reporter_gated(f->r, said, "waiting for scheduling gates: [a]");
    ms_pod_unref(said);
    assert_int_equal(ms_api_reporter_patches_skipped(f->r), 2);
    assert_int_equal(ms_api_reporter_failed_attempts(f->r, f->pod), 0);
    assert_int_equal(flush(f), 1);
    assert_string_equal(f->api.srv->reqs[0].method, "PATCH");
    assert_string_equal(f->api.srv->reqs[0].path, STATUS);
    cJSON *b = body(f, 0);
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "status"), "conditions"), 0);
    assert_string_equal(str(c, "type", NULL), "PodScheduled");
    assert_string_equal(str(c, "status", NULL), "False");
    assert_string_equal(str(c, "reason", NULL), "SchedulingGated");
    assert_string_equal(str(c, "message", NULL), "Scheduling is blocked due to non-empty scheduling gates");
    cJSON_Delete(b);
    ms_poster_stats st;
    ms_poster_stats_get(f->poster, &st);
    assert_int_equal(st.events_posted, 0);
}

static double num(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* One Event per pod: the first report posts it, later ones (at most once
 * per interval) update its series with the count so far, as client-go's
 * event series; the Event keeps its first note. */
static void test_repeats_as_series(void **state) {
    fixture *f = *state;
    start(f, 0.05, 0);
    for (int i = 0; i < 3; i++) ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    fh_sleep(0.06);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "still full");
    fh_sleep(0.06);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "still full");
    /* the condition twice (two messages), the Event, two updates */
    assert_int_equal(flush(f), 5);
    int ev[3], ne = 0;
    for (int i = 0; i < 5; i++)
        if (strncmp(f->api.srv->reqs[i].path, EVENTS, strlen(EVENTS)) == 0 && ne < 3) ev[ne++] = i;
    assert_int_equal(ne, 3);
    assert_string_equal(f->api.srv->reqs[ev[0]].method, "POST");
    assert_string_equal(f->api.srv->reqs[ev[0]].path, EVENTS);
    cJSON *b = body(f, ev[0]);
    assert_string_equal(str(b, "reason", NULL), "FailedScheduling");
    assert_null(cJSON_GetObjectItem(b, "series"));
    char path[512];
    snprintf(path, sizeof path, EVENTS "/%s", str(b, "metadata", "name"));
    assert_non_null(strstr(path, "/events/p."));
    cJSON_Delete(b);
    for (int k = 1; k < 3; k++) {
        const fh_request *q = &f->api.srv->reqs[ev[k]];
        assert_string_equal(q->method, "PATCH");
        assert_string_equal(q->path, path);   /* the same Event */
        char ct[64];
        assert_non_null(fh_header(q, "Content-Type", ct, sizeof ct));
        assert_string_equal(ct, "application/strategic-merge-patch+json");
        b = body(f, ev[k]);
        assert_true(num(b, "series", "count") == 3 + k);   /* 4, then 5 reports */
        const char *t = str(b, "series", "lastObservedTime");
        assert_non_null(t);
        assert_int_equal(strlen(t), 27);   /* MicroTime: 2006-01-02T15:04:05.000000Z */
        assert_null(cJSON_GetObjectItem(b, "note"));   /* the note stays the first */
        cJSON_Delete(b);
    }
    ms_poster_stats st;
    ms_poster_stats_get(f->poster, &st);
    assert_int_equal(st.events_posted, 3);
    assert_int_equal(st.events_suppressed, 2);
}

/* An update whose Event is gone (expired: 404) posts it again, under the
 * same name, with the series so far; the server keeps events.k8s.io/v1. */
static void test_series_event_gone(void **state) {
    fixture *f = *state;
    f->faults.events_gone = true;
    start(f, 0.05, 0);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    fh_sleep(0.06);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    fh_sleep(0.06);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    /* condition, Event, PATCH 404 + POST, PATCH 404 + POST */
    assert_int_equal(flush(f), 6);
    cJSON *first = body(f, 1);
    const char *name = str(first, "metadata", "name");
    for (int i = 3; i < 6; i += 2) {
        assert_string_equal(f->api.srv->reqs[i - 1].method, "PATCH");
        assert_string_equal(f->api.srv->reqs[i].method, "POST");
        assert_string_equal(f->api.srv->reqs[i].path, EVENTS);   /* not core/v1 */
        cJSON *b = body(f, i);
        assert_string_equal(str(b, "metadata", "name"), name);
        assert_true(num(b, "series", "count") == (i == 3 ? 2 : 3));
        assert_string_equal(str(b, "reason", NULL), "FailedScheduling");
        cJSON_Delete(b);
    }
    cJSON_Delete(first);
}

/* A series not observed for series_finish is over: the next report posts
 * a new Event. */
static void test_series_finishes(void **state) {
    fixture *f = *state;
    f->series_finish = 0.1;
    start(f, 0.01, 0);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    fh_sleep(0.15);
    ms_api_reporter_unschedulable(f->r, f->pod, false, "full");
    assert_int_equal(flush(f), 3);
    assert_string_equal(f->api.srv->reqs[1].method, "POST");
    assert_string_equal(f->api.srv->reqs[2].method, "POST");
    cJSON *a = body(f, 1), *b = body(f, 2);
    assert_string_not_equal(str(a, "metadata", "name"), str(b, "metadata", "name"));
    assert_null(cJSON_GetObjectItem(b, "series"));
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* An attempt that ended in an error: the condition's reason is
 * SchedulerError (patched again when only the reason changes); the Event
 * is FailedScheduling, as upstream. */
static void test_scheduler_error(void **state) {
    fixture *f = *state;
    start(f, 30, 0);
    ms_api_reporter_unschedulable(f->r, f->pod, true, "running PreBind plugin \"X\": boom");
    ms_api_reporter_unschedulable(f->r, f->pod, false, "running PreBind plugin \"X\": boom");
    assert_int_equal(flush(f), 3);
    static const char *const want[] = {"SchedulerError", "Unschedulable"};
    for (int k = 0; k < 2; k++) {
        cJSON *b;
        const cJSON *c = status_condition(f, k == 0 ? 0 : 2, &b);
        assert_string_equal(str(c, "reason", NULL), want[k]);
        cJSON_Delete(b);
    }
    cJSON *b = body(f, 1);
    assert_string_equal(str(b, "reason", NULL), "FailedScheduling");
    cJSON_Delete(b);
}

/* The global budget (qps 0.25: a burst of one) drops the rest, counted. */
static void test_event_budget(void **state) {
    fixture *f = *state;
    start(f, 30, 0.25);
    ms_api_reporter_bound(f->r, f->pod, "node-1");
    ms_api_reporter_bound(f->r, f->other, "node-1");
    ms_object_ref self = {"v1", "Pod", "kube-system", "moonsched-0", NULL};
    ms_api_reporter_event(f->r, NULL, &self, "Normal", "PolicyReloaded", "Reload", "x");
    assert_int_equal(flush(f), 1);
    ms_poster_stats st;
    ms_poster_stats_get(f->poster, &st);
    assert_int_equal(st.events_suppressed, 2);
}

/* Preemption: the victim's deletion with a UID precondition and the
 * nominations go first; the Preempted event names the preemptor. */
static void test_preemption_reports(void **state) {
    fixture *f = *state;
    start(f, 30, 0);
    ms_api_reporter_preempted(f->r, f->pod, f->other, "node-2");
    ms_api_reporter_evict(f->r, f->pod, f->other);
    ms_api_reporter_nominate(f->r, f->other, "node-2");
    ms_api_reporter_nominate(f->r, f->other, NULL);
    assert_int_equal(flush(f), 4);
    /* the event may be on the wire before the urgent ones are queued */
    int del = -1, ev = -1, nom[2], nn = 0;
    for (int i = 0; i < 4; i++) {
        if (strcmp(f->api.srv->reqs[i].method, "DELETE") == 0) del = i;
        else if (strcmp(f->api.srv->reqs[i].path, EVENTS) == 0) ev = i;
        else if (nn < 2) nom[nn++] = i;
    }
    assert_true(del >= 0 && ev >= 0 && nn == 2);
    assert_string_equal(f->api.srv->reqs[del].path, "/api/v1/namespaces/team/pods/p");
    cJSON *b = body(f, del);
    assert_string_equal(str(b, "kind", NULL), "DeleteOptions");
    assert_string_equal(str(b, "preconditions", "uid"), "uid-p");
    cJSON_Delete(b);
    assert_true(nom[0] < nom[1]);
    assert_string_equal(f->api.srv->reqs[nom[0]].path, "/api/v1/namespaces/team/pods/big/status");
    b = body(f, nom[0]);
    assert_string_equal(str(b, "status", "nominatedNodeName"), "node-2");
    cJSON_Delete(b);
    b = body(f, nom[1]);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "status"), "nominatedNodeName")));
    cJSON_Delete(b);
    b = body(f, ev);
    assert_string_equal(str(b, "reason", NULL), "Preempted");
    assert_string_equal(str(b, "note", NULL), "Preempted by team/big on node node-2");
    assert_string_equal(str(b, "regarding", "name"), "p");
    assert_string_equal(str(b, "related", "name"), "big");
    assert_string_equal(str(b, "related", "uid"), "uid-big");
    cJSON_Delete(b);
}

/* A server with disruption conditions (1.26+): the victim's
 * DisruptionTarget condition, upstream's reason and message, before its
 * DELETE. */
static void test_disruption_target(void **state) {
    fixture *f = *state;
    f->disruption_conditions = true;
    start(f, 30, 0);
    ms_api_reporter_evict(f->r, f->pod, f->other);
    assert_int_equal(flush(f), 2);
    cJSON *b;
    const cJSON *c = status_condition(f, 0, &b);
    assert_string_equal(str(c, "type", NULL), "DisruptionTarget");
    assert_string_equal(str(c, "status", NULL), "True");
    assert_string_equal(str(c, "reason", NULL), "PreemptionByScheduler");
    assert_string_equal(str(c, "message", NULL), "default-scheduler: preempting to accommodate a higher priority pod");
    assert_non_null(str(c, "lastTransitionTime", NULL));
    cJSON_Delete(b);
    assert_string_equal(f->api.srv->reqs[1].method, "DELETE");
    assert_string_equal(f->api.srv->reqs[1].path, "/api/v1/namespaces/team/pods/p");
}

/* upstream's prepareCandidate: a victim whose DisruptionTarget condition
 * the server refuses is not deleted. */
static void test_disruption_target_refused(void **state) {
    fixture *f = *state;
    f->disruption_conditions = true;
    f->faults.status_fails = true;
    start(f, 30, 0);
    ms_api_reporter_evict(f->r, f->pod, f->other);
    assert_int_equal(flush(f), 1);
    assert_string_equal(f->api.srv->reqs[0].method, "PATCH");
    assert_string_equal(f->api.srv->reqs[0].path, STATUS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unschedulable_aggregation, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_gated_condition, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_repeats_as_series, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_series_event_gone, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_series_finishes, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_scheduler_error, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_disruption_target, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_disruption_target_refused, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_event_budget, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_preemption_reports, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
