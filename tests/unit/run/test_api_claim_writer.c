/* run's claim writer (run/api_claim_writer.c) against a scripted API
 * server. The server stands for a 1.34 one serving resource.k8s.io/v1
 * (the 1.20 kube-apiserver the end-to-end suites build does not serve the
 * group): it answers the claim's status PATCH (a merge patch carrying the
 * resourceVersion seen) with 409 Conflict as long as that resourceVersion
 * is not the claim's current one, and a GET with the claim as it is now.
 * What DynamicResources' PreBind writes (status.allocation and the pod in
 * status.reservedFor), and upstream's retry on conflict: read the claim
 * again, write anew on it, give up when it was deleted or allocated
 * elsewhere meanwhile, or after 5 attempts. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <poll.h>

#include "fake_api.h"
#include "fixtures.h"
#include "api/dra.h"
#include "run/api_claim_writer.h"
#include "codec/decode_dra.h"

static const ms_logger quiet = {.level = -1};

#define CLAIM_PATH "/apis/resource.k8s.io/v1/namespaces/ml/resourceclaims/gpu"

/* The claim on the server. */
typedef struct server_claim {
    pthread_mutex_t mu;
    char rv[16];
    const char *status;            /* JSON of its status, or NULL */
    bool deleting;
    bool always_conflict;
    int patch_status;              /* answer to the PATCH when not a conflict; 0: 200 */
} server_claim;

static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    server_claim *c = ctx;
    pthread_mutex_lock(&c->mu);
    char body[1024];
    bool ok;
    if (!strcmp(req->method, "GET") && !strcmp(req->path, CLAIM_PATH)) {
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":{\"name\":\"gpu\","
                 "\"namespace\":\"ml\",\"uid\":\"uid-gpu\",\"resourceVersion\":\"%s\"%s},\"spec\":{}%s%s}",
                 c->rv, c->deleting ? ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"" : "",
                 c->status ? ",\"status\":" : "", c->status ? c->status : "");
        ok = fh_reply(fd, 200, NULL, body);
    } else if (!strcmp(req->method, "PATCH") && !strcmp(req->path, CLAIM_PATH)) {
        /* the finalizer: the claim's resourceVersion moves on */
        cJSON *b = cJSON_Parse(req->body ? req->body : "");
        const cJSON *rv = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "metadata"), "resourceVersion");
        bool current = cJSON_IsString(rv) && !strcmp(rv->valuestring, c->rv) && !c->always_conflict;
        cJSON_Delete(b);
        if (current) {
            snprintf(c->rv, sizeof c->rv, "%d", atoi(c->rv) + 1);
            snprintf(body, sizeof body, "{\"metadata\":{\"name\":\"gpu\",\"namespace\":\"ml\",\"resourceVersion\":\"%s\","
                     "\"finalizers\":[\"resource.kubernetes.io/delete-protection\"]}}", c->rv);
        }
        ok = current ? fh_reply(fd, 200, NULL, body)
                     : fh_reply(fd, 409, NULL, "{\"kind\":\"Status\",\"message\":\"the object has been modified\","
                                               "\"reason\":\"Conflict\",\"code\":409}");
    } else if (!strcmp(req->method, "PATCH") && !strcmp(req->path, CLAIM_PATH "/status") &&
               strstr(req->headers, "application/strategic-merge-patch+json")) {
        ok = fh_reply(fd, c->patch_status ? c->patch_status : 200, NULL, "{}");
    } else if (!strcmp(req->method, "PATCH") && !strcmp(req->path, CLAIM_PATH "/status")) {
        cJSON *b = cJSON_Parse(req->body ? req->body : "");
        const cJSON *rv = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "metadata"), "resourceVersion");
        bool current = cJSON_IsString(rv) && !strcmp(rv->valuestring, c->rv) && !c->always_conflict;
        cJSON_Delete(b);
        if (!current)
            ok = fh_reply(fd, 409, NULL,
                          "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Operation cannot be fulfilled on "
                          "resourceclaims.resource.k8s.io \\\"gpu\\\": the object has been modified; please apply "
                          "your changes to the latest version and try again\",\"reason\":\"Conflict\",\"code\":409}");
        else if (c->patch_status)
            ok = fh_reply(fd, c->patch_status, NULL,
                          "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"ResourceClaim.resource.k8s.io "
                          "\\\"gpu\\\" is invalid: status.reservedFor: Forbidden: may not be specified when "
                          "`allocated` is not set\",\"reason\":\"Invalid\",\"code\":422}");
        else
            ok = fh_reply(fd, 200, NULL, "{}");
    } else {
        ok = fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    }
    pthread_mutex_unlock(&c->mu);
    return ok;
}

typedef struct fixture {
    server_claim claim;
    fa_api api;
    fx_env env;
    ms_api_claim_writer *w;
    ms_claim_writer ops;
    int nfailed;
    char message[1024];
} fixture;

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->claim.mu, NULL);
    snprintf(f->claim.rv, sizeof f->claim.rv, "7");
    fa_start(&f->api, handler, &f->claim, &quiet);
    ms_error err = {0};
    fx_env_init(&f->env);
    if (ms_api_claim_writer_new(f->api.c, f->env.in, NULL, &quiet, &f->w, &err) != MS_OK) fail_msg("writer: %s", err.msg);
    f->ops = ms_api_claim_writer_vtable(f->w);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_api_claim_writer_free(f->w);
    fa_stop(&f->api);
    fx_env_free(&f->env);
    pthread_mutex_destroy(&f->claim.mu);
    free(f);
    return 0;
}

static ms_dra_object *claim(fixture *f, const char *status) {
    char text[1536];
    snprintf(text, sizeof text,
             "{\"metadata\":{\"name\":\"gpu\",\"namespace\":\"ml\",\"uid\":\"uid-gpu\",\"resourceVersion\":\"7\"},"
             "\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":"
             "\"gpu.example.com\"}}]}}%s%s}",
             status ? ",\"status\":" : "", status ? status : "");
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    ms_dra_object *o = NULL;
    ms_error err = {0};
    if (ms_dra_decode(&f->env.d, MS_DK_RESOURCE_CLAIM, j, &o, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return o;
}

/* What PreBind writes for pod ml/job: the device on node-1 and the pod. */
#define ALLOCATED \
    "{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"gpu\",\"driver\":\"gpu.example.com\",\"pool\":" \
    "\"node-1\",\"device\":\"gpu-0\"}]},\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"   \
    "\"metadata.name\",\"operator\":\"In\",\"values\":[\"node-1\"]}]}]}},\"reservedFor\":[{\"resource\":"      \
    "\"pods\",\"name\":\"job\",\"uid\":\"uid-job\"}]}"

static ms_pod *pod(fixture *f) {
    return fx_pod(&f->env.d, "{\"metadata\":{\"name\":\"job\",\"namespace\":\"ml\",\"uid\":\"uid-job\"},"
                             "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
}

static void failed(void *ctx, const ms_pod *p, const char *message) {
    fixture *f = ctx;
    (void)p;
    f->nfailed++;
    snprintf(f->message, sizeof f->message, "%s", message);
}

/* Sends the write of the allocated claim (allocate: Reserve allocated
 * it) and waits until `want` requests came and nothing more does. */
static void write_and_wait(fixture *f, bool allocate, int want) {
    ms_dra_object *seen = claim(f, NULL), *status = claim(f, ALLOCATED);
    ms_pod *p = pod(f);
    ms_claim_write w = {seen, status, allocate};
    ms_error err = {0};
    assert_int_equal(f->ops.write(f->ops.ctx, p, &w, 1, &err), MS_OK);
    ms_pod_unref(p);
    ms_dra_unref(seen);
    ms_dra_unref(status);
    double end = fh_now() + 10;
    while (fh_nreqs(f->api.srv) < want && fh_now() < end) fh_sleep(0.005);
    fh_sleep(0.1);   /* nothing more comes */
    assert_int_equal(fh_nreqs(f->api.srv), want);
    end = fh_now() + 5;
    for (;;) {
        struct pollfd pf = {.fd = ms_api_claim_writer_fd(f->w), .events = POLLIN};
        if (poll(&pf, 1, 50) > 0) {
            ms_api_claim_writer_drain(f->w, failed, f);
            break;
        }
        if (fh_now() > end) break;
    }
}

static cJSON *body(fixture *f, int i) {
    cJSON *b = cJSON_Parse(f->api.srv->reqs[i].body);
    assert_non_null(b);
    return b;
}

static const cJSON *at(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(v, b) : v;
}

/* A claim to allocate: first upstream's finalizer in the claim itself (a
 * strategic merge patch, with the resourceVersion seen), then the status
 * on the claim it returned: the allocation as the API has it and the pod
 * in reservedFor. */
static void test_allocation_and_reservation(void **state) {
    fixture *f = *state;
    write_and_wait(f, true, 2);
    assert_int_equal(f->nfailed, 0);
    const fh_request *r = &f->api.srv->reqs[0];
    assert_string_equal(r->method, "PATCH");
    assert_string_equal(r->path, CLAIM_PATH);
    assert_non_null(strstr(r->headers, "application/strategic-merge-patch+json"));
    cJSON *b = body(f, 0);
    cJSON *want = cJSON_Parse("{\"metadata\":{\"resourceVersion\":\"7\",\"finalizers\":"
                              "[\"resource.kubernetes.io/delete-protection\"]}}");
    assert_true(cJSON_Compare(b, want, true));
    cJSON_Delete(want);
    cJSON_Delete(b);
    r = &f->api.srv->reqs[1];
    assert_string_equal(r->method, "PATCH");
    assert_string_equal(r->path, CLAIM_PATH "/status");
    assert_non_null(strstr(r->headers, "application/merge-patch+json"));
    b = body(f, 1);
    assert_string_equal(at(b, "metadata", "resourceVersion")->valuestring, "8");
    want = cJSON_Parse(ALLOCATED);
    assert_true(cJSON_Compare(at(b, "status", NULL), want, true));
    cJSON_Delete(want);
    cJSON_Delete(b);
}

/* A claim allocated before this cycle: only reservedFor is written. */
static void test_reservation_only(void **state) {
    fixture *f = *state;
    write_and_wait(f, false, 1);
    cJSON *b = body(f, 0);
    assert_null(at(b, "status", "allocation"));
    assert_int_equal(cJSON_GetArraySize(at(b, "status", "reservedFor")), 1);
    cJSON_Delete(b);
}

/* The claim changed once meanwhile (another pod reserved it): 409, a GET,
 * and the PATCH again on what was read: its resourceVersion, the other
 * pod kept in reservedFor, this pod added. */
static void test_conflict_reread_and_retried(void **state) {
    fixture *f = *state;
    snprintf(f->claim.rv, sizeof f->claim.rv, "8");
    f->claim.status = "{\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"other\",\"uid\":\"uid-other\"}]}";
    write_and_wait(f, false, 3);
    assert_int_equal(f->nfailed, 0);
    assert_string_equal(f->api.srv->reqs[1].method, "GET");
    assert_string_equal(f->api.srv->reqs[1].path, CLAIM_PATH);
    assert_string_equal(f->api.srv->reqs[2].method, "PATCH");
    cJSON *b = body(f, 2);
    assert_string_equal(at(b, "metadata", "resourceVersion")->valuestring, "8");
    const cJSON *rf = at(b, "status", "reservedFor");
    assert_int_equal(cJSON_GetArraySize(rf), 2);
    assert_string_equal(at(cJSON_GetArrayItem(rf, 0), "uid", NULL)->valuestring, "uid-other");
    assert_string_equal(at(cJSON_GetArrayItem(rf, 1), "uid", NULL)->valuestring, "uid-job");
    cJSON_Delete(b);
}

/* Allocated by someone else meanwhile: no second write, upstream's words. */
static void test_conflict_allocated_elsewhere(void **state) {
    fixture *f = *state;
    snprintf(f->claim.rv, sizeof f->claim.rv, "9");
    f->claim.status = "{\"allocation\":{\"devices\":{\"results\":[]}}}";
    write_and_wait(f, true, 2);
    assert_int_equal(f->nfailed, 1);
    assert_string_equal(f->message, "claim ml/gpu got allocated elsewhere in the meantime");
}

static void test_conflict_deleted(void **state) {
    fixture *f = *state;
    snprintf(f->claim.rv, sizeof f->claim.rv, "9");
    f->claim.deleting = true;
    write_and_wait(f, true, 2);
    assert_int_equal(f->nfailed, 1);
    assert_string_equal(f->message, "claim ml/gpu got deleted in the meantime");
}

/* Conflicts every time: 5 PATCHes (of the finalizer, which comes first;
 * 4 GETs between them), then the last conflict is the binding cycle's
 * error. */
static void test_conflicts_give_up(void **state) {
    fixture *f = *state;
    f->claim.always_conflict = true;
    write_and_wait(f, true, 9);
    assert_int_equal(f->nfailed, 1);
    assert_string_equal(f->message, "add finalizer to claim ml/gpu: the object has been modified");
}

/* Any other refusal is not retried. */
static void test_refused(void **state) {
    fixture *f = *state;
    f->claim.patch_status = 422;
    write_and_wait(f, false, 1);
    assert_int_equal(f->nfailed, 1);
    assert_string_equal(f->message, "add reservation to claim ml/gpu: ResourceClaim.resource.k8s.io \"gpu\" is invalid: "
                                    "status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
}

/* Unreserve after the writes: the pod's entry deleted by uid with a
 * strategic merge patch, the claim's uid as a precondition; nothing for
 * the scheduler to hear, even on a refusal. */
static void test_unreserve(void **state) {
    fixture *f = *state;
    ms_dra_object *c = claim(f, ALLOCATED);
    const ms_dra_object *claims[] = {c};
    ms_pod *p = pod(f);
    f->ops.unreserve(f->ops.ctx, p, claims, 1);
    double end = fh_now() + 10;
    while (fh_nreqs(f->api.srv) < 1 && fh_now() < end) fh_sleep(0.005);
    assert_int_equal(fh_nreqs(f->api.srv), 1);
    const fh_request *r = &f->api.srv->reqs[0];
    assert_string_equal(r->method, "PATCH");
    assert_string_equal(r->path, CLAIM_PATH "/status");
    assert_non_null(strstr(r->headers, "application/strategic-merge-patch+json"));
    cJSON *b = body(f, 0), *want = cJSON_Parse("{\"metadata\":{\"uid\":\"uid-gpu\"},\"status\":{\"reservedFor\":"
                                                "[{\"$patch\":\"delete\",\"uid\":\"uid-job\"}]}}");
    assert_true(cJSON_Compare(b, want, true));
    cJSON_Delete(b);
    cJSON_Delete(want);
    f->claim.patch_status = 422;
    f->ops.unreserve(f->ops.ctx, p, claims, 1);
    while (fh_nreqs(f->api.srv) < 2 && fh_now() < end) fh_sleep(0.005);
    assert_int_equal(fh_nreqs(f->api.srv), 2);
    fh_sleep(0.1);
    ms_api_claim_writer_drain(f->w, failed, f);
    assert_int_equal(f->nfailed, 0);
    ms_pod_unref(p);
    ms_dra_unref(c);
}

/* PostFilter's deallocation: a merge patch of the status clearing the
 * allocation and reservedFor, with the resourceVersion seen; a refusal
 * is not retried and nothing for the scheduler to hear. */
static void test_deallocate(void **state) {
    fixture *f = *state;
    ms_dra_object *c = claim(f, ALLOCATED);
    ms_pod *p = pod(f);
    f->ops.deallocate(f->ops.ctx, p, c);
    double end = fh_now() + 10;
    while (fh_nreqs(f->api.srv) < 1 && fh_now() < end) fh_sleep(0.005);
    assert_int_equal(fh_nreqs(f->api.srv), 1);
    const fh_request *r = &f->api.srv->reqs[0];
    assert_string_equal(r->method, "PATCH");
    assert_string_equal(r->path, CLAIM_PATH "/status");
    assert_non_null(strstr(r->headers, "application/merge-patch+json"));
    cJSON *b = body(f, 0), *want = cJSON_Parse("{\"metadata\":{\"resourceVersion\":\"7\"},\"status\":"
                                                "{\"allocation\":null,\"reservedFor\":null}}");
    assert_true(cJSON_Compare(b, want, true));
    cJSON_Delete(b);
    cJSON_Delete(want);
    f->claim.always_conflict = true;
    f->ops.deallocate(f->ops.ctx, p, c);
    while (fh_nreqs(f->api.srv) < 2 && fh_now() < end) fh_sleep(0.005);
    fh_sleep(0.1);   /* nothing more comes */
    assert_int_equal(fh_nreqs(f->api.srv), 2);
    ms_api_claim_writer_drain(f->w, failed, f);
    assert_int_equal(f->nfailed, 0);
    ms_pod_unref(p);
    ms_dra_unref(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_allocation_and_reservation, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_reservation_only, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conflict_reread_and_retried, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conflict_allocated_elsewhere, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conflict_deleted, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_conflicts_give_up, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_refused, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_unreserve, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_deallocate, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
