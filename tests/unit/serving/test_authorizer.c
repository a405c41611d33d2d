#include "testutil.h"

#include "fake_reviews.h"
#include "serving/authorizer.h"

static const ms_logger quiet = {.level = -1};

typedef struct fixture {
    fake_reviews fr;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client *c;
    ms_authorizer *a;
    cJSON *alice, *anon;
    double now;
    char reason[512];
} fixture;

static double fake_clock(void *ctx) { return ((fixture *)ctx)->now; }

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->srv = fr_start(&f->fr, &f->kc, &f->c);
    ms_error err = {0};
    ms_authorizer_options ao = {.client = f->c, .clock = fake_clock, .clock_ctx = f, .log = &quiet};
    if (ms_authorizer_new(&ao, &f->a, &err) != MS_OK) fail_msg("authorizer: %s", err.msg);
    f->alice = cJSON_Parse("{\"username\":\"alice\",\"uid\":\"u-1\",\"groups\":[\"devs\",\"system:authenticated\"],"
                           "\"extra\":{\"scopes\":[\"a\"]}}");
    f->anon = cJSON_Parse("{\"username\":\"system:anonymous\",\"groups\":[\"system:unauthenticated\"]}");
    f->now = 50;
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_authorizer_free(f->a);
    fr_stop(f->srv, &f->kc, f->c);
    cJSON_Delete(f->alice);
    cJSON_Delete(f->anon);
    free(f);
    return 0;
}

static ms_authz_decision ask(fixture *f, const cJSON *user, const char *verb, const char *path) {
    return ms_authorizer_authorize(f->a, user, verb, path, f->reason, sizeof f->reason);
}

static void test_always_allowed_paths(void **state) {
    fixture *f = *state;
    assert_int_equal(ask(f, f->anon, "get", "/healthz"), MS_AUTHZ_ALLOW);
    assert_int_equal(ask(f, f->anon, "get", "/livez"), MS_AUTHZ_ALLOW);
    assert_int_equal(ask(f, f->anon, "post", "/readyz"), MS_AUTHZ_ALLOW);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 0);
    /* exact paths: a suffix is reviewed, as upstream */
    assert_int_equal(ask(f, f->anon, "get", "/healthz/ping"), MS_AUTHZ_DENY);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 1);
}

static void test_prefix_paths(void **state) {
    fixture *f = *state;
    const char *paths[] = {"/debug/*", "/version"};
    ms_authorizer *a;
    ms_error err = {0};
    ms_authorizer_options ao = {.client = f->c, .always_allow_paths = paths, .nalways_allow_paths = 2, .log = &quiet};
    assert_int_equal(ms_authorizer_new(&ao, &a, &err), MS_OK);
    assert_int_equal(ms_authorizer_authorize(a, f->anon, "get", "/debug/pprof", f->reason, sizeof f->reason),
                     MS_AUTHZ_ALLOW);
    assert_int_equal(ms_authorizer_authorize(a, f->anon, "get", "/version", f->reason, sizeof f->reason),
                     MS_AUTHZ_ALLOW);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 0);
    ms_authorizer_free(a);
}

static void test_review_and_cache(void **state) {
    fixture *f = *state;
    assert_int_equal(ask(f, f->alice, "get", "/metrics"), MS_AUTHZ_ALLOW);
    const fh_request *r = &f->srv->reqs[0];
    assert_string_equal(r->path, "/apis/authorization.k8s.io/v1/subjectaccessreviews?timeout=10s");
    assert_string_equal(r->body,
                        "{\"kind\":\"SubjectAccessReview\",\"apiVersion\":\"authorization.k8s.io/v1\",\"spec\":{"
                        "\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"},\"user\":\"alice\","
                        "\"groups\":[\"devs\",\"system:authenticated\"],\"extra\":{\"scopes\":[\"a\"]},\"uid\":\"u-1\"}}");
    /* allowed, cached 10 s */
    f->now += 9;
    assert_int_equal(ask(f, f->alice, "get", "/metrics"), MS_AUTHZ_ALLOW);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 1);
    /* another verb, another user: reviewed */
    assert_int_equal(ask(f, f->alice, "head", "/metrics"), MS_AUTHZ_DENY);
    assert_int_equal(ask(f, f->anon, "get", "/metrics"), MS_AUTHZ_DENY);
    assert_string_equal(f->reason, "");
    assert_int_equal(atomic_load(&f->fr.access_reviews), 3);
    assert_non_null(strstr(f->srv->reqs[2].body, "\"spec\":{\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":"
                                                 "\"get\"},\"user\":\"system:anonymous\",\"groups\":[\"system:"
                                                 "unauthenticated\"]}"));
    /* denied, cached 10 s with its reason */
    assert_int_equal(ask(f, f->alice, "get", "/reason"), MS_AUTHZ_DENY);
    assert_string_equal(f->reason, "no way");
    f->now += 5;
    assert_int_equal(ask(f, f->alice, "get", "/reason"), MS_AUTHZ_DENY);
    assert_string_equal(f->reason, "no way");
    assert_int_equal(ask(f, f->anon, "get", "/metrics"), MS_AUTHZ_DENY);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 4);
    f->now += 6;   /* past the first answers' 10 s */
    assert_int_equal(ask(f, f->alice, "get", "/metrics"), MS_AUTHZ_ALLOW);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 5);
}

static void test_errors_not_cached(void **state) {
    fixture *f = *state;
    assert_int_equal(ask(f, f->alice, "get", "/err"), MS_AUTHZ_ERROR);
    assert_string_equal(f->reason, "SubjectAccessReview: HTTP 500: no etcd");
    assert_int_equal(ask(f, f->alice, "get", "/err"), MS_AUTHZ_ERROR);
    assert_int_equal(ask(f, f->alice, "get", "/both"), MS_AUTHZ_ERROR);
    assert_string_equal(f->reason, "webhook subject access review returned both allow and deny response");
    assert_int_equal(ask(f, f->alice, "get", "/both"), MS_AUTHZ_ERROR);
    assert_int_equal(atomic_load(&f->fr.access_reviews), 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_always_allowed_paths, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_prefix_paths, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_review_and_cache, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_errors_not_cached, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
