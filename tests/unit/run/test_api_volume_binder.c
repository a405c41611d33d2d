/* run's volume binder (run/api_volume_binder.c) against a fake API
 * server: what VolumeBinding's PreBind writes (the PV's claimRef and
 * bound-by-controller, the claim's selected-node, each a merge patch with
 * the resourceVersion seen), in upstream's order, stopping at the first
 * refusal, which comes back to the scheduler thread with its message. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <poll.h>

#include "fake_api.h"
#include "fixtures.h"
#include "run/api_volume_binder.h"
#include "api/storage.h"
#include "moonsched/decode.h"
#include "codec/decode_storage.h"

static const ms_logger quiet = {.level = -1};

/* PATCHes answer 200, but for objects named conflict-* (409, as the API
 * server words an outdated resourceVersion). */
static bool handler(fake_http *srv, int fd, const fh_request *req, void *ctx) {
    (void)srv;
    (void)ctx;
    if (strcmp(req->method, "PATCH") != 0) return fh_reply(fd, 405, NULL, "{}");
    if (strstr(req->path, "/conflict-"))
        return fh_reply(fd, 409, NULL,
                        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Operation cannot be fulfilled "
                        "on persistentvolumes \\\"conflict-pv\\\": the object has been modified; please apply "
                        "your changes to the latest version and try again\",\"reason\":\"Conflict\",\"code\":409}");
    return fh_reply(fd, 200, NULL, "{}");
}

typedef struct fixture {
    fa_api api;
    fx_env env;
    ms_api_volume_binder *b;
    ms_volume_binder ops;
    int nfailed;
    char failed_pod[64], message[1024];
} fixture;

static int fx_setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    fa_start(&f->api, handler, NULL, &quiet);
    ms_error err = {0};
    fx_env_init(&f->env);
    if (ms_api_volume_binder_new(f->api.c, f->env.in, NULL, &quiet, &f->b, &err) != MS_OK)
        fail_msg("binder: %s", err.msg);
    f->ops = ms_api_volume_binder_vtable(f->b);
    *state = f;
    return 0;
}

static int fx_teardown(void **state) {
    fixture *f = *state;
    ms_api_volume_binder_free(f->b);
    fa_stop(&f->api);
    fx_env_free(&f->env);
    free(f);
    return 0;
}

static ms_storage_object *storage(fixture *f, ms_storage_kind kind, const char *text) {
    cJSON *j = NULL;
    ms_error err = {0};
    if (ms_json_parse(text, strlen(text), &j, &err) != MS_OK) fail_msg("%s", err.msg);
    ms_storage_object *o = NULL;
    if (ms_storage_decode(&f->env.d, kind, j, &o, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return o;
}

static ms_storage_object *claim(fixture *f, const char *name) {
    char text[512];
    snprintf(text, sizeof text, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"uid\":\"uid-%s\","
             "\"resourceVersion\":\"7\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],\"resources\":"
             "{\"requests\":{\"storage\":\"1Gi\"}}}}", name, name);
    return storage(f, MS_SK_PVC, text);
}

/* A PV as Reserve assumes it: the API object (claimRef as given), and a
 * copy of it bound to the claim. */
static ms_storage_object *assumed_pv(fixture *f, const char *name, const char *claim_ref, ms_storage_object **api) {
    char text[768];
    snprintf(text, sizeof text, "{\"metadata\":{\"name\":\"%s\",\"resourceVersion\":\"42\"},\"spec\":{\"capacity\":"
             "{\"storage\":\"1Gi\"},\"accessModes\":[\"ReadWriteOnce\"],\"local\":{\"path\":\"/mnt\"}%s}}",
             name, claim_ref);
    *api = storage(f, MS_SK_PV, text);
    return ms_storage_copy(*api);
}

static void failed(void *ctx, const ms_pod *pod, const char *message) {
    fixture *f = ctx;
    f->nfailed++;
    snprintf(f->failed_pod, sizeof f->failed_pod, "%s", ms_str_get(f->env.in, pod->meta.name));
    snprintf(f->message, sizeof f->message, "%s", message);
}

static ms_pod *pod(fixture *f, const char *name) {
    char text[256];
    snprintf(text, sizeof text, "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"team\",\"uid\":\"uid-%s\"},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", name, name);
    return fx_pod(&f->env.d, text);
}

/* Pod NAME's volumes handed to the binder for NODE: accepted, written later. */
static void bind_pod(fixture *f, const char *name, const char *node, ms_pod_volumes *v) {
    ms_pod *p = pod(f, name);
    ms_error err = {0};
    assert_int_equal(f->ops.bind(f->ops.ctx, p, ms_intern_cstr(f->env.in, node), v, &err), MS_OK);
    ms_pod_unref(p);
}

static void wait_requests(fixture *f, int want) {
    double end = fh_now() + 5;
    while (fh_nreqs(f->api.srv) < want && fh_now() < end) fh_sleep(0.005);
    fh_sleep(0.05);   /* nothing more comes */
    assert_int_equal(fh_nreqs(f->api.srv), want);
}

static cJSON *body(fixture *f, int i) {
    cJSON *b = cJSON_Parse(f->api.srv->reqs[i].body);
    assert_non_null(b);
    return b;
}

static const char *str_at(const cJSON *o, const char *a, const char *b, const char *c) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    if (c) v = cJSON_GetObjectItemCaseSensitive(v, c);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A static binding and a claim to provision: the PV first, then the claim. */
static void test_writes_in_order(void **state) {
    fixture *f = *state;
    ms_storage_object *data = claim(f, "data"), *logs = claim(f, "logs"), *api = NULL;
    ms_storage_object *pv = assumed_pv(f, "pv-1", "", &api);
    ms_volume_binding statics[] = {{.pvc = data, .pv = pv, .bound_by_controller = true}}, dyn[] = {{.pvc = logs}};
    ms_pod_volumes v = {1, statics, 1, dyn};
    bind_pod(f, "web-0", "node-2", &v);
    ms_storage_unref(pv);
    ms_storage_unref(api);
    ms_storage_unref(data);
    ms_storage_unref(logs);
    wait_requests(f, 2);
    const fh_request *r = &f->api.srv->reqs[0];
    assert_string_equal(r->path, "/api/v1/persistentvolumes/pv-1");
    assert_non_null(strstr(r->headers, "application/merge-patch+json"));
    cJSON *b = body(f, 0);
    assert_string_equal(str_at(b, "metadata", "resourceVersion", NULL), "42");
    assert_string_equal(str_at(b, "metadata", "annotations", "pv.kubernetes.io/bound-by-controller"), "yes");
    assert_string_equal(str_at(b, "spec", "claimRef", "kind"), "PersistentVolumeClaim");
    assert_string_equal(str_at(b, "spec", "claimRef", "namespace"), "team");
    assert_string_equal(str_at(b, "spec", "claimRef", "name"), "data");
    assert_string_equal(str_at(b, "spec", "claimRef", "uid"), "uid-data");
    assert_string_equal(str_at(b, "spec", "claimRef", "resourceVersion"), "7");
    cJSON_Delete(b);
    assert_string_equal(f->api.srv->reqs[1].path, "/api/v1/namespaces/team/persistentvolumeclaims/logs");
    b = body(f, 1);
    assert_string_equal(str_at(b, "metadata", "resourceVersion", NULL), "7");
    assert_string_equal(str_at(b, "metadata", "annotations", "volume.kubernetes.io/selected-node"), "node-2");
    assert_null(cJSON_GetObjectItem(b, "spec"));
    cJSON_Delete(b);
    /* success needs no word: the informers bring the updates */
    ms_api_volume_binder_drain(f->b, failed, f);
    assert_int_equal(f->nfailed, 0);
}

/* A PV pre-bound to the claim (by name) is not marked bound by a
 * controller (upstream's GetBindVolumeToClaim; Reserve says which). */
static void test_prebound_pv(void **state) {
    fixture *f = *state;
    ms_storage_object *data = claim(f, "data"), *api = NULL;
    ms_storage_object *pv = assumed_pv(f, "pv-2", ",\"claimRef\":{\"namespace\":\"team\",\"name\":\"data\"}", &api);
    ms_volume_binding statics[] = {{.pvc = data, .pv = pv, .bound_by_controller = false}};
    ms_pod_volumes v = {1, statics, 0, NULL};
    bind_pod(f, "web-1", "node-1", &v);
    ms_storage_unref(pv);
    ms_storage_unref(api);
    ms_storage_unref(data);
    wait_requests(f, 1);
    cJSON *b = body(f, 0);
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "metadata"), "annotations"));
    assert_string_equal(str_at(b, "spec", "claimRef", "uid"), "uid-data");
    cJSON_Delete(b);
}

/* A refused write stops the pod's writes; its message reaches the
 * scheduler thread through the fd and the drain. */
static void test_refusal_stops_and_is_reported(void **state) {
    fixture *f = *state;
    ms_storage_object *data = claim(f, "data"), *logs = claim(f, "logs"), *api = NULL;
    ms_storage_object *pv = assumed_pv(f, "conflict-pv", "", &api);
    ms_volume_binding statics[] = {{.pvc = data, .pv = pv}}, dyn[] = {{.pvc = logs}};
    ms_pod_volumes v = {1, statics, 1, dyn};
    bind_pod(f, "web-2", "node-1", &v);
    ms_storage_unref(pv);
    ms_storage_unref(api);
    ms_storage_unref(data);
    ms_storage_unref(logs);
    double end = fh_now() + 5;
    while (f->nfailed == 0 && fh_now() < end) {
        struct pollfd pf = {.fd = ms_api_volume_binder_fd(f->b), .events = POLLIN};
        if (poll(&pf, 1, 100) > 0) ms_api_volume_binder_drain(f->b, failed, f);
    }
    assert_int_equal(f->nfailed, 1);
    assert_string_equal(f->failed_pod, "web-2");
    assert_string_equal(f->message, "Operation cannot be fulfilled on persistentvolumes \"conflict-pv\": the object "
                                    "has been modified; please apply your changes to the latest version and try again");
    wait_requests(f, 1);   /* the claim was not annotated */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_writes_in_order, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_prebound_pv, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_refusal_stops_and_is_reported, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
