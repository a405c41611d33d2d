#include "testutil.h"

#include <cjson/cJSON.h>
#include <poll.h>
#include <stdatomic.h>

#include "fake_api.h"
#include "fixtures.h"
#include "metrics_states.h"
#include "run/api_binder.h"

static const ms_logger quiet = {.level = -1};

/* The answer depends on the pod's name: ok-*, gone404, the 409s below,
 * fail, and slow (held until released). */
static atomic_bool release_slow;

/* 409 Status bodies as a kube-apiserver words them (pods/binding storage:
 * v1.20.2 for all but the gates, which v1.30 adds). */
static const struct {
    const char *pod, *message;
    ms_bind_conflict why;
} conflicts[] = {
    {"bound409", "Operation cannot be fulfilled on pods/binding \\\"bound409\\\": pod bound409 is already "
                 "assigned to node \\\"node-2\\\"", MS_BIND_CONFLICT_ALREADY_BOUND},
    {"gated409", "Operation cannot be fulfilled on pods/binding \\\"gated409\\\": pod gated409 has non-empty "
                 ".spec.schedulingGates", MS_BIND_CONFLICT_GATED},
    {"uid409", "Operation cannot be fulfilled on pods \\\"uid409\\\": StorageError: invalid object, Code: 4, "
               "Key: /registry/pods/team/uid409, ResourceVersion: 0, AdditionalErrorMsg: Precondition "
               "failed: UID in precondition: uid-uid409, UID in object meta: 0c7f", MS_BIND_CONFLICT_UID_CHANGED},
    {"deleting409", "Operation cannot be fulfilled on pods/binding \\\"deleting409\\\": pod deleting409 is "
                    "being deleted, cannot be assigned to a host", MS_BIND_CONFLICT_BEING_DELETED},
    {"other409", "Operation cannot be fulfilled on pods \\\"other409\\\": the object has been modified; please "
                 "apply your changes to the latest version and try again", MS_BIND_CONFLICT_OTHER},
};
#define NCONFLICTS (sizeof conflicts / sizeof conflicts[0])

static bool reply_conflict(int fd, const fh_request *req) {
    for (size_t i = 0; i < NCONFLICTS; i++) {
        char path[128], body[1024];
        snprintf(path, sizeof path, "/pods/%s/", conflicts[i].pod);
        if (!strstr(req->path, path)) continue;
        snprintf(body, sizeof body, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                 "\"Failure\",\"message\":\"%s\",\"reason\":\"Conflict\",\"details\":{\"name\":\"%s\","
                 "\"kind\":\"pods/binding\"},\"code\":409}", conflicts[i].message, conflicts[i].pod);
        fh_reply(fd, 409, NULL, body);
        return true;
    }
    return false;
}

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    (void)ctx;
    if (strcmp(req->method, "POST") != 0 || !strstr(req->path, "/binding")) return fh_reply(fd, 405, NULL, "{}");
    if (strstr(req->path, "/pods/ok-")) return fh_reply(fd, 201, NULL, "{\"kind\":\"Status\",\"code\":201}");
    if (strstr(req->path, "/pods/gone404"))
        return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"message\":\"pods \\\"gone404\\\" not found\"}");
    if (reply_conflict(fd, req)) return true;
    if (strstr(req->path, "/pods/slow"))
        while (!atomic_load(&release_slow)) fh_sleep(0.005);
    return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"etcd is sad\"}");
}

typedef struct fixture {
    fa_api api;
    fx_env env;
    ms_api_metrics *metrics;
    ms_api_binder *b;
    ms_bind_outcome got[8];
    char nodes[8][32], messages[8][512], names[8][64];
    int n;
} fixture;

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    atomic_store(&release_slow, false);
    fa_start(&f->api, handler, NULL, &quiet);
    ms_error err = {0};
    fx_env_init(&f->env);
    f->metrics = ms_api_metrics_new();
    if (ms_api_binder_new(f->api.c, f->env.in, f->metrics, 4, &f->b, &err) != MS_OK) fail_msg("binder: %s", err.msg);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    atomic_store(&release_slow, true);
    ms_api_binder_free(f->b);
    ms_api_metrics_free(f->metrics);
    fa_stop(&f->api);
    fx_env_free(&f->env);
    free(f);
    return 0;
}

static void collect(void *ctx, const ms_bind_outcome *o) {
    fixture *f = ctx;
    assert_true(f->n < 8);
    int i = f->n++;
    f->got[i] = *o;
    snprintf(f->nodes[i], sizeof f->nodes[i], "%s", o->node);
    snprintf(f->messages[i], sizeof f->messages[i], "%s", o->message);
    snprintf(f->names[i], sizeof f->names[i], "%s", ms_str_get(f->env.in, o->pod->meta.name));
    f->got[i].node = f->nodes[i];
    f->got[i].message = f->messages[i];
    f->got[i].pod = NULL;          /* freed after the drain */
}

static void bind_pod(fixture *f, const char *name, double start, uint32_t profile) {
    char text[256];
    snprintf(text, sizeof text, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"uid\":\"uid-%s\"},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", name, name);
    ms_pod *p = fx_pod(&f->env.d, text);
    assert_int_equal(ms_api_binder_bind(f->b, p, "node-1", start, profile), MS_OK);
    ms_pod_unref(p);               /* the binder holds its own reference */
}

/* Drains until `want` outcomes came (the fd wakes the loop). */
static void drain_until(fixture *f, int want) {
    double end = fh_now() + 5;
    while (f->n < want && fh_now() < end) {
        struct pollfd p = {.fd = ms_api_binder_fd(f->b), .events = POLLIN};
        if (poll(&p, 1, 100) > 0) ms_api_binder_drain(f->b, collect, f);
    }
    assert_int_equal(f->n, want);
}

static int find(fixture *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->names[i], name) == 0) return i;
    fail_msg("no outcome for %s", name);
    return -1;
}

/* What is sent: a Binding of the pod (with its uid) to the node. */
static void test_binding_request(void **state) {
    fixture *f = *state;
    bind_pod(f, "ok-1", 12.5, 3);
    assert_int_equal(ms_api_binder_in_flight(f->b), 1);
    drain_until(f, 1);
    assert_int_equal(ms_api_binder_in_flight(f->b), 0);
    assert_int_equal(fh_nreqs(f->api.srv), 1);
    assert_string_equal(f->api.srv->reqs[0].path, "/api/v1/namespaces/team/pods/ok-1/binding");
    cJSON *b = cJSON_Parse(f->api.srv->reqs[0].body);
    assert_non_null(b);
    assert_string_equal(cJSON_GetObjectItem(b, "kind")->valuestring, "Binding");
    const cJSON *m = cJSON_GetObjectItem(b, "metadata"), *t = cJSON_GetObjectItem(b, "target");
    assert_string_equal(cJSON_GetObjectItem(m, "name")->valuestring, "ok-1");
    assert_string_equal(cJSON_GetObjectItem(m, "namespace")->valuestring, "team");
    assert_string_equal(cJSON_GetObjectItem(m, "uid")->valuestring, "uid-ok-1");
    assert_string_equal(cJSON_GetObjectItem(t, "kind")->valuestring, "Node");
    assert_string_equal(cJSON_GetObjectItem(t, "name")->valuestring, "node-1");
    cJSON_Delete(b);
    assert_true(f->got[0].ok);
    assert_false(f->got[0].gone);
    assert_string_equal(f->got[0].node, "node-1");
    assert_string_equal(f->got[0].message, "");
    assert_true(f->got[0].attempt_start == 12.5);
    assert_int_equal(f->got[0].profile, 3);
}

/* 404: gone (deleted meanwhile); anything but 2xx, 404 and 409: failed,
 * with the server's message, for the scheduler to requeue. */
static void test_outcomes(void **state) {
    fixture *f = *state;
    bind_pod(f, "ok-2", 0, 0);
    bind_pod(f, "gone404", 0, 0);
    bind_pod(f, "fail", 0, 0);
    drain_until(f, 3);
    int i = find(f, "ok-2");
    assert_true(f->got[i].ok);
    assert_false(f->got[i].conflict);
    i = find(f, "gone404");
    assert_false(f->got[i].ok);
    assert_true(f->got[i].gone);
    assert_false(f->got[i].conflict);
    assert_string_equal(f->got[i].message, "binding rejected (404): pods \"gone404\" not found");
    i = find(f, "fail");
    assert_false(f->got[i].ok);
    assert_false(f->got[i].gone);
    assert_false(f->got[i].conflict);
    assert_string_equal(f->got[i].message, "binding rejected (500): etcd is sad");
    size_t len;
    char *text = metrics_render_one(ms_api_metrics_collect, f->metrics, &len);
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"404\"} 1\n"));
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"500\"} 1\n"));
    free(text);
}

/* 409: a conflict, whose meaning is read from the Status message (never
 * "gone" by itself: what it means decides what becomes of the pod). The
 * message is kept whole for the log. */
static void test_conflicts(void **state) {
    fixture *f = *state;
    for (size_t k = 0; k < NCONFLICTS; k++) bind_pod(f, conflicts[k].pod, 0, 0);
    drain_until(f, (int)NCONFLICTS);
    for (size_t k = 0; k < NCONFLICTS; k++) {
        int i = find(f, conflicts[k].pod);
        assert_false(f->got[i].ok);
        assert_false(f->got[i].gone);
        assert_true(f->got[i].conflict);
        assert_int_equal(f->got[i].why, conflicts[k].why);
        assert_non_null(strstr(f->got[i].message, "binding rejected (409): Operation cannot be fulfilled"));
    }
    int i = find(f, "uid409");
    assert_non_null(strstr(f->got[i].message, "UID in precondition: uid-uid409"));
    size_t len;
    char *text = metrics_render_one(ms_api_metrics_collect, f->metrics, &len);
    assert_non_null(strstr(text, "moonsched_api_requests_total{code=\"409\"} 5\n"));
    free(text);
}

/* The words alone, as the scheduler's logs name them. */
static void test_conflict_words(void **state) {
    (void)state;
    assert_int_equal(ms_api_binder_conflict_of(NULL), MS_BIND_CONFLICT_OTHER);
    assert_int_equal(ms_api_binder_conflict_of(""), MS_BIND_CONFLICT_OTHER);
    assert_int_equal(ms_api_binder_conflict_of("pod p is already assigned to node \"n\""),
                     MS_BIND_CONFLICT_ALREADY_BOUND);
    assert_int_equal(ms_api_binder_conflict_of("pod p has non-empty .spec.schedulingGates"),
                     MS_BIND_CONFLICT_GATED);
    assert_string_equal(ms_metrics_conflict_name(MS_BIND_CONFLICT_UID_CHANGED), "uid_changed");
    assert_string_equal(ms_metrics_conflict_name(MS_BIND_CONFLICT_COUNT), "other");
}

/* Stopping drops the binds not answered: no outcome (the pod stays
 * pending on the server), and nothing is left in flight. */
static void test_stop_drops_unanswered(void **state) {
    fixture *f = *state;
    bind_pod(f, "ok-3", 0, 0);
    drain_until(f, 1);
    bind_pod(f, "slow", 0, 0);
    double end = fh_now() + 2;
    while (fh_nreqs(f->api.srv) < 2 && fh_now() < end) fh_sleep(0.005);
    ms_api_binder_stop(f->b);
    ms_api_binder_drain(f->b, collect, f);
    assert_int_equal(f->n, 1);
    assert_int_equal(ms_api_binder_in_flight(f->b), 0);
    /* and no more binds are taken */
    ms_pod *p = fx_pod(&f->env.d, "{\"metadata\":{\"name\":\"late\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
    assert_int_equal(ms_api_binder_bind(f->b, p, "node-1", 0, 0), MS_ESTATE);
    ms_pod_unref(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_binding_request, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_outcomes, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conflicts, fx_setup, fx_teardown),
        cmocka_unit_test(test_conflict_words),
        cmocka_unit_test_setup_teardown(test_stop_drops_unanswered, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
