/* DynamicResources: upstream's PreEnqueue and PreFilter over the claims the
 * scheduler knows (dynamicresources_test.go's cases without allocation),
 * Filter on an allocated claim's node selector, and, while nothing provides
 * the resource.k8s.io objects (run), every pod with claims refused in
 * PreFilter with a reason; Unreserve after a failed bind. Pods without
 * claims skip the plugin. The
 * allocator's cases run through simulate (cli/test_simulate_dra.sh). */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "api/dra.h"
#include "backend/dra_store.h"
#include "moonsched/decode.h"
#include "plugin_harness.h"
#include "codec/decode_dra.h"
#include "fixtures.h"

#define NOT_ALLOCATABLE "pod has resource claims, which moonsched cannot allocate yet"

static ms_decoder dec;

static ms_pod *pod(const char *text) {
    cJSON *j = fx_yaml(text);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&dec, j, &p, &err) != MS_OK) fail_msg("pod: %s", err.msg);
    cJSON_Delete(j);
    return p;
}

static void put_claim(ms_dra_store *s, const char *text) {
    cJSON *j = fx_yaml(text);
    ms_dra_object *o = NULL;
    ms_error err = {0};
    if (ms_dra_decode(&dec, MS_DK_RESOURCE_CLAIM, j, &o, &err) != MS_OK) fail_msg("claim: %s", err.msg);
    cJSON_Delete(j);
    assert_int_equal(ms_dra_store_set(s, o), 0);
    ms_dra_unref(o);
}

#define POD(claims, status) \
    "metadata: {name: job, namespace: ml, uid: pod-uid}\nspec: {resourceClaims: " claims "}\nstatus: " status "\n"
#define CLAIM(name, meta, status) \
    "metadata: {name: " name ", namespace: ml" meta "}\n" \
    "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}\nstatus: " status "\n"
#define OWNED ", ownerReferences: [{apiVersion: v1, kind: Pod, name: job, uid: pod-uid, controller: true}]"
#define ALLOCATED "{allocation: {devices: {results: [{request: r, driver: d, pool: p, device: gpu-0}]}}}"
#define ON_RACK_R2                                                                                     \
    "{allocation: {devices: {results: [{request: r, driver: d, pool: p, device: gpu-0}]}, nodeSelector: " \
    "{nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: [r2]}]}]}}}"

static void fill_store(ms_dra_store *s) {
    put_claim(s, CLAIM("shared", "", ALLOCATED));
    put_claim(s, CLAIM("job-gpu", OWNED, ALLOCATED));
    put_claim(s, CLAIM("other-gpu", ", ownerReferences: [{apiVersion: v1, kind: Pod, name: x, uid: x, controller: true}]",
                       ALLOCATED));
    put_claim(s, CLAIM("deleted", ", deletionTimestamp: \"2026-01-01T00:00:00Z\"", ALLOCATED));
    put_claim(s, CLAIM("pending", "", "{}"));
    put_claim(s, CLAIM("on-r2", "", ON_RACK_R2));
    /* reserved for 256 other consumers: in use */
    char text[40000];
    int n = snprintf(text, sizeof text, CLAIM("full", "", "{allocation: {devices: {results: []}}, reservedFor: ["));
    for (int i = 0; i < 256; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s{resource: pods, name: p%d, uid: u%d}", i ? ", " : "", i, i);
    snprintf(text + n, sizeof text - (size_t)n, "]}\n");
    put_claim(s, text);
}

static void test_with_the_objects(void **state) {
    (void)state;
    static const struct {
        const char *name, *pod;
        const char *enqueue;           /* PreEnqueue's refusal, NULL: let in */
        ms_code pre_filter;
        const char *reason;            /* PreFilter's */
    } cases[] = {
        {"no claims", POD("[]", "{}"), NULL, MS_SKIP, NULL},
        {"claim from a template, not generated", POD("[{name: gpu, resourceClaimTemplateName: t}]", "{}"),
         "pod \"ml/job\": ResourceClaim not created yet", MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
         "pod \"ml/job\": ResourceClaim not created yet"},
        {"template entry that needed no claim", POD("[{name: gpu, resourceClaimTemplateName: t}]",
                                                    "{resourceClaimStatuses: [{name: gpu}]}"),
         NULL, MS_SKIP, NULL},
        {"claim that does not exist", POD("[{name: gpu, resourceClaimName: nope}]", "{}"),
         "could not find ResourceClaim \"ml/nope\"", MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
         "could not find ResourceClaim \"ml/nope\""},
        {"claim being deleted", POD("[{name: gpu, resourceClaimName: deleted}]", "{}"),
         "resourceclaim \"deleted\" is being deleted", MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
         "resourceclaim \"deleted\" is being deleted"},
        {"generated claim of another pod",
         POD("[{name: gpu, resourceClaimTemplateName: t}]", "{resourceClaimStatuses: [{name: gpu, resourceClaimName: other-gpu}]}"),
         "ResourceClaim other-gpu was not created for pod ml/job (pod is not owner)", MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
         "ResourceClaim other-gpu was not created for pod ml/job (pod is not owner)"},
        {"generated claim of the pod, allocated",
         POD("[{name: gpu, resourceClaimTemplateName: t}]", "{resourceClaimStatuses: [{name: gpu, resourceClaimName: job-gpu}]}"),
         NULL, MS_SKIP, NULL},
        {"shared claim, allocated on no particular node", POD("[{name: gpu, resourceClaimName: shared}]", "{}"), NULL,
         MS_SKIP, NULL},
        {"claim to allocate, its class missing",
         POD("[{name: a, resourceClaimName: shared}, {name: b, resourceClaimName: pending}]", "{}"), NULL,
         MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "request r: device class gpu.example.com does not exist"},
        {"claim reserved for 256 others", POD("[{name: gpu, resourceClaimName: full}]", "{}"), NULL,
         MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use"},
        {"claim allocated on rack r2", POD("[{name: gpu, resourceClaimName: on-r2}]", "{}"), NULL, MS_SUCCESS, NULL},
    };
    ms_dra_store *store = ms_dra_store_new();
    fill_store(store);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *p = pod(cases[i].pod);
        harness hx;
        harness_init(&hx, "DynamicResources", p);
        hx.h.dra = store;
        const char *reason = NULL;
        bool let_in = hx.ops->pre_enqueue(hx.self, p, &reason);
        if (let_in != !cases[i].enqueue) fail_msg("%s: PreEnqueue %d", cases[i].name, let_in);
        if (!let_in) assert_string_equal(reason, cases[i].enqueue);
        ms_status st;
        ms_status_ok(&st);
        ms_code got = hx.ops->pre_filter(hx.self, &hx.c, &st);
        if (got != cases[i].pre_filter) fail_msg("%s: PreFilter %d, want %d", cases[i].name, got, cases[i].pre_filter);
        if (cases[i].reason) {
            assert_int_equal(st.nreasons, 1);
            assert_string_equal(st.reasons[0], cases[i].reason);
        }
        harness_free(&hx);
        ms_pod_unref(p);
    }
    ms_dra_store_free(store);
}

/* Filter keeps the nodes the allocation's node selector allows. */
static void test_filter_on_allocated_node_selector(void **state) {
    (void)state;
    ms_dra_store *store = ms_dra_store_new();
    fill_store(store);
    ms_pod *p = pod(POD("[{name: gpu, resourceClaimName: on-r2}]", "{}"));
    harness hx;
    harness_init(&hx, "DynamicResources", p);
    hx.h.dra = store;
    ms_status st;
    assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SUCCESS);
    ms_node *r1 = node_with("n1", NULL), *r2 = node_with("n2", NULL);
    ms_label l1 = {S("rack"), S("r1")}, l2 = {S("rack"), S("r2")};
    r1->meta.labels = (ms_labels){1, &l1};
    r2->meta.labels = (ms_labels){1, &l2};
    assert_int_equal(run_filter(&hx, r1, &st), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(st.reasons[0], "resourceclaim not available on the node");
    assert_int_equal(run_filter(&hx, r2, &st), MS_SUCCESS);
    r1->meta.labels = (ms_labels){0, NULL};
    r2->meta.labels = (ms_labels){0, NULL};
    ms_node_unref(r1);
    ms_node_unref(r2);
    harness_free(&hx);
    ms_pod_unref(p);
    ms_dra_store_free(store);
}

/* Nothing provides the objects (run, for now): no claim can be looked up,
 * so PreEnqueue lets the pod in and PreFilter refuses it, for all nodes. */
static void test_without_the_objects(void **state) {
    (void)state;
    static const char *const pods[] = {
        POD("[{name: gpu, resourceClaimName: shared}]", "{}"),
        POD("[{name: gpu, resourceClaimTemplateName: t}]", "{}"),
        POD("[{name: gpu, resourceClaimTemplateName: t}]", "{resourceClaimStatuses: [{name: gpu, resourceClaimName: g}]}"),
    };
    for (size_t i = 0; i < sizeof pods / sizeof pods[0]; i++) {
        ms_pod *p = pod(pods[i]);
        harness hx;
        harness_init(&hx, "DynamicResources", p);
        const char *reason = NULL;
        assert_true(hx.ops->pre_enqueue(hx.self, p, &reason));
        ms_status st;
        ms_status_ok(&st);
        assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
        assert_string_equal(st.reasons[0], NOT_ALLOCATABLE);
        harness_free(&hx);
        ms_pod_unref(p);
    }
    ms_pod *p = pod(POD("[]", "{}"));
    harness hx;
    harness_init(&hx, "DynamicResources", p);
    ms_status st;
    assert_int_equal(hx.ops->pre_filter(hx.self, &hx.c, &st), MS_SKIP);
    harness_free(&hx);
    ms_pod_unref(p);
}

/* Unreserve after a failed bind, as upstream: the pod leaves the
 * reservedFor of its allocated claims, which stay allocated; the other
 * consumers stay. */
static void test_unreserve_after_bind_failure(void **state) {
    (void)state;
    ms_dra_store *store = ms_dra_store_new();
    put_claim(store, CLAIM("mine", "", "{allocation: {devices: {results: [{request: r, driver: d, pool: p, device: gpu-0}]}}, "
                                       "reservedFor: [{resource: pods, name: job, uid: pod-uid}, "
                                       "{resource: pods, name: other, uid: other-uid}]}"));
    ms_pod *p = pod(POD("[{name: gpu, resourceClaimName: mine}]", "{}"));
    harness hx;
    harness_init(&hx, "DynamicResources", p);
    hx.h.dra = store;
    ms_status st;
    ms_status_ok(&st);
    hx.ops->pre_filter(hx.self, &hx.c, &st);
    hx.ops->unreserve(hx.self, &hx.c, S("n1"));
    const ms_dra_object *o = ms_dra_store_get(store, MS_DK_RESOURCE_CLAIM, S("ml"), S("mine"));
    assert_non_null(o);
    assert_true(o->u.claim.allocated);
    assert_int_equal(o->u.claim.nresults, 1);
    assert_int_equal(o->u.claim.nreserved_for, 1);
    assert_string_equal(o->u.claim.reserved_for[0].uid, "other-uid");
    harness_free(&hx);
    ms_pod_unref(p);
    ms_dra_store_free(store);
}

static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *o = ms_plugin_lookup("DynamicResources");
    assert_non_null(o);
    assert_non_null(o->pre_enqueue);
    assert_non_null(o->pre_filter);
    assert_non_null(o->filter);
    assert_non_null(o->post_filter);
    assert_non_null(o->unreserve);
    assert_int_equal(o->events, MS_EV_UNSCHEDULED_POD_UPDATE | MS_EV_NODE_ADD | MS_EV_NODE_LABEL |
                                    MS_EV_RESOURCE_CLAIM | MS_EV_RESOURCE_SLICE | MS_EV_DEVICE_CLASS);
}

static int setup_all(void **state) {
    setup(state);
    ms_decoder_init(&dec, in);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_with_the_objects),
        cmocka_unit_test(test_filter_on_allocated_node_selector),
        cmocka_unit_test(test_without_the_objects),
        cmocka_unit_test(test_unreserve_after_bind_failure),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown);
}
