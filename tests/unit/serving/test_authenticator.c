#include "testutil.h"

#include "fake_reviews.h"
#include "serving/authenticator.h"

static const ms_logger quiet = {.level = -1};

typedef struct fixture {
    fake_reviews fr;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client *c;
    ms_authenticator *a;
    double now;
} fixture;

static double fake_clock(void *ctx) { return ((fixture *)ctx)->now; }

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    f->srv = fr_start(&f->fr, &f->kc, &f->c);
    ms_error err = {0};
    ms_authenticator_options ao = {.client = f->c, .clock = fake_clock, .clock_ctx = f, .log = &quiet};
    if (ms_authenticator_new(&ao, &f->a, &err) != MS_OK) fail_msg("authenticator: %s", err.msg);
    f->now = 1000;
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_authenticator_free(f->a);
    fr_stop(f->srv, &f->kc, f->c);
    free(f);
    return 0;
}

/* "name|group,group" of the user, or the rc's name. */
static char *who(fixture *f, const char *header, ms_rc *rc) {
    cJSON *u = NULL;
    ms_error err = {0};
    static char out[1024];
    *rc = ms_authenticator_authenticate(f->a, header, &u, &err);
    if (*rc != MS_OK) {
        assert_null(u);
        snprintf(out, sizeof out, "%s: %s", ms_rc_str(*rc), err.msg);
        return out;
    }
    snprintf(out, sizeof out, "%s|", cJSON_GetObjectItem(u, "username")->valuestring);
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(u, "groups")) {
        strcat(out, g->valuestring);
        if (g->next) strcat(out, ",");
    }
    cJSON_Delete(u);
    return out;
}

static void test_anonymous_without_bearer(void **state) {
    fixture *f = *state;
    ms_rc rc;
    assert_string_equal(who(f, NULL, &rc), "system:anonymous|system:unauthenticated");
    assert_string_equal(who(f, "Basic YTpi", &rc), "system:anonymous|system:unauthenticated");
    assert_string_equal(who(f, "Bearer ", &rc), "system:anonymous|system:unauthenticated");
    assert_string_equal(who(f, "Bearer  good", &rc), "system:anonymous|system:unauthenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 0);
}

static void test_token_reviewed_and_cached(void **state) {
    fixture *f = *state;
    ms_rc rc;
    /* the scheme in any case; the group adder appends system:authenticated */
    assert_string_equal(who(f, "bearer good", &rc), "alice|devs,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 1);
    const fh_request *r = &f->srv->reqs[0];
    assert_string_equal(r->method, "POST");
    assert_string_equal(r->path, "/apis/authentication.k8s.io/v1/tokenreviews?timeout=10s");
    assert_string_equal(r->body,
                        "{\"kind\":\"TokenReview\",\"apiVersion\":\"authentication.k8s.io/v1\",\"spec\":{\"token\":\"good\"}}");
    f->now += 9.9;
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 1);
    f->now += 0.2;   /* 10 s after the review */
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 2);
    /* a user already in system:authenticated gets it once */
    assert_string_equal(who(f, "Bearer sa", &rc),
                        "system:serviceaccount:ns:sa|system:serviceaccounts,system:authenticated");
}

/* --authentication-token-webhook-cache-ttl: another time, or 0s (negative
 * here): every request reviewed. */
static void renew(fixture *f, double ttl) {
    ms_authenticator_free(f->a);
    ms_error err = {0};
    ms_authenticator_options ao = {.client = f->c, .cache_ttl = ttl, .clock = fake_clock, .clock_ctx = f,
                                   .log = &quiet};
    if (ms_authenticator_new(&ao, &f->a, &err) != MS_OK) fail_msg("authenticator: %s", err.msg);
}

static void test_cache_ttl(void **state) {
    fixture *f = *state;
    ms_rc rc;
    renew(f, 60);
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    f->now += 59.9;
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 1);
    f->now += 0.2;
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 2);

    renew(f, -1);
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_false(ms_authenticator_answer_cached(f->a, "Bearer good"));
    assert_int_equal(atomic_load(&f->fr.token_reviews), 4);
}

static void test_refusals(void **state) {
    fixture *f = *state;
    ms_rc rc;
    /* an answer with an error: refused and asked again each time, as upstream */
    assert_string_equal(who(f, "Bearer bad", &rc), "invalid input: invalid bearer token");
    assert_int_equal(rc, MS_EINVAL);
    who(f, "Bearer bad", &rc);
    assert_int_equal(atomic_load(&f->fr.token_reviews), 2);
    /* not authenticated without a reason: refused, and cached */
    who(f, "Bearer nomsg", &rc);
    assert_int_equal(rc, MS_EINVAL);
    who(f, "Bearer nomsg", &rc);
    assert_int_equal(rc, MS_EINVAL);
    assert_int_equal(atomic_load(&f->fr.token_reviews), 3);
    /* a failed review: refused, not cached */
    assert_string_equal(who(f, "Bearer boom", &rc), "i/o error: TokenReview: HTTP 500: etcd down");
    who(f, "Bearer boom", &rc);
    assert_int_equal(rc, MS_EIO);
    assert_int_equal(atomic_load(&f->fr.token_reviews), 5);
}

static void test_v1beta1_fallback(void **state) {
    fixture *f = *state;
    atomic_store(&f->fr.no_v1, true);
    ms_rc rc;
    assert_string_equal(who(f, "Bearer good", &rc), "alice|devs,system:authenticated");
    assert_string_equal(f->srv->reqs[1].path, "/apis/authentication.k8s.io/v1beta1/tokenreviews?timeout=10s");
    assert_non_null(strstr(f->srv->reqs[1].body, "\"apiVersion\":\"authentication.k8s.io/v1beta1\""));
    /* decided once */
    assert_string_equal(who(f, "Bearer sa", &rc), "system:serviceaccount:ns:sa|system:serviceaccounts,system:authenticated");
    assert_int_equal(atomic_load(&f->fr.token_reviews), 3);
}

static void test_unreachable(void **state) {
    fixture *f = *state;
    ms_kubeconfig kc = {.server = "http://127.0.0.1:1"};
    ms_kube_client *c;
    ms_authenticator *a;
    ms_error err = {0};
    ms_kube_client_options co = {.config = &kc, .max_retries = -1, .log = &quiet};
    assert_int_equal(ms_kube_client_new(&co, &c, &err), MS_OK);
    ms_authenticator_options ao = {.client = c, .timeout = 2, .log = &quiet};
    assert_int_equal(ms_authenticator_new(&ao, &a, &err), MS_OK);
    cJSON *u = NULL;
    assert_int_equal(ms_authenticator_authenticate(a, "Bearer good", &u, &err), MS_EIO);
    assert_null(u);
    ms_authenticator_free(a);
    ms_kube_client_free(c);
    (void)f;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_anonymous_without_bearer, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_token_reviewed_and_cached, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_cache_ttl, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_refusals, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_v1beta1_fallback, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_unreachable, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
