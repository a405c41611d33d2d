/* VolumeBinding: PreFilter's claim checks, Filter's reasons (bound PVs'
 * affinity, matching an available PV, provisioning and capacity), the
 * smallest PV that fits, Reserve's assumptions and Unreserve, and PreBind
 * through a recording binder (wait, success, failure, deadline). Nodes come
 * from a real cache and snapshot; storage objects from YAML. */
#include "testutil.h"

#include "backend/cache.h"
#include "backend/cache_snapshot.h"
#include "framework/volume_binder.h"
#include "volume_fixtures.h"

static ms_cache *cache;
static ms_snapshot snap;

/* The binder's last call. */
static struct {
    int calls;
    uint32_t nbindings, nprovisions;
    ms_str pv;                     /* first static binding's PV */
    ms_str claim_ref;              /* its claimRef name */
    ms_str selected;               /* first provisioning's selected node */
    bool by_controller;            /* first static binding's bound_by_controller */
    ms_rc answer;
} rec;

static ms_rc record_bind(void *ctx, const ms_pod *pod, ms_str node, const ms_pod_volumes *v, ms_error *err) {
    (void)ctx;
    (void)pod;
    (void)node;
    rec.calls++;
    rec.nbindings = v->nbindings;
    rec.nprovisions = v->nprovisions;
    if (v->nbindings) {
        rec.pv = v->bindings[0].pv->meta.name;
        rec.claim_ref = v->bindings[0].pv->u.pv.claim_name;
        rec.by_controller = v->bindings[0].bound_by_controller;
    }
    if (v->nprovisions) rec.selected = v->provisions[0].pvc->u.pvc.selected_node;
    if (rec.answer != MS_OK) return ms_error_set(err, rec.answer, "the server said no");
    return MS_OK;
}

static const ms_volume_binder binder = {NULL, record_bind, NULL};

static ms_str S(const char *s) { return ms_intern_cstr(env.in, s); }

static void add_node(const char *name, const char *zone) {
    char text[256];
    snprintf(text, sizeof text, "metadata: {name: %s, labels: {kubernetes.io/hostname: %s, topology.kubernetes.io/zone: %s}}\n"
             "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}", name, name, zone);
    ms_node *n = fx_node(&env.d, text);
    assert_int_equal(ms_cache_add_node(cache, n), MS_OK);
    ms_node_unref(n);
}

static int vb_setup(void **state) {
    setup(state);
    cache = ms_cache_new(env.in, 0);
    ms_snapshot_init(&snap);
    add_node("n1", "z1");
    add_node("n2", "z2");
    assert_int_equal(ms_cache_update_snapshot(cache, &snap), MS_OK);
    return 0;
}

static int vb_teardown(void **state) {
    ms_snapshot_free(&snap);
    ms_cache_free(cache);
    return teardown(state);
}

static void reset(void) {
    store_reset();
    memset(&rec, 0, sizeof rec);
}

#define add store_add

#define LOCAL_SC "metadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer"

static void local_pv(const char *name, const char *size, const char *node) {
    char text[512];
    snprintf(text, sizeof text,
             "metadata: {name: %s}\nspec: {capacity: {storage: %s}, accessModes: [ReadWriteOnce], storageClassName: local,"
             " local: {path: /d}, nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions:"
             " [{key: kubernetes.io/hostname, operator: In, values: [%s]}]}]}}}\nstatus: {phase: Available}",
             name, size, node);
    add(MS_SK_PV, text);
}

static void claim(const char *name, const char *cls, const char *extra) {
    char text[512];
    snprintf(text, sizeof text,
             "metadata: {name: %s, namespace: default, uid: uid-%s%s}\n"
             "spec: {accessModes: [ReadWriteOnce], storageClassName: %s, resources: {requests: {storage: 1Gi}}}",
             name, name, extra ? extra : "", cls);
    add(MS_SK_PVC, text);
}

static ms_pod *pod_claims(const char *name, const char *c1, const char *c2) {
    char text[512];
    snprintf(text, sizeof text,
             "metadata: {name: %s, namespace: default, uid: %s}\nspec: {containers: [{name: c}], volumes: "
             "[{name: a, persistentVolumeClaim: {claimName: %s}}%s%s%s]}",
             name, name, c1, c2 ? ", {name: b, persistentVolumeClaim: {claimName: " : "", c2 ? c2 : "", c2 ? "}}" : "");
    return fx_pod(&env.d, text);
}

/* VolumeBinding around `pod`, with the recording binder and the snapshot. */
static void vb_init(harness *hx, ms_pod *pod) {
    harness_init(hx, "VolumeBinding", pod);
    hx->h.volume_binder = &binder;
    hx->c.snap = &snap;
}

static ms_code pre_filter(harness *hx, ms_status *st) {
    ms_status_ok(st);
    return hx->ops->pre_filter(hx->self, &hx->c, st);
}

static ms_code filter(harness *hx, const char *node, ms_status *st) {
    ms_status_ok(st);
    return hx->ops->filter(hx->self, &hx->c, ms_snapshot_get(&snap, S(node)), st);
}

/* PreFilter of a pod with claim `c` alone: the code and first reason. */
static ms_code pre_filter_one(const char *c, char *reason, size_t n) {
    ms_pod *pod = pod_claims("p", c, NULL);
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    ms_code code = pre_filter(&hx, &st);
    snprintf(reason, n, "%s", st.nreasons ? st.reasons[0] : "");
    harness_free(&hx);
    ms_pod_unref(pod);
    return code;
}

static void test_pre_filter(void **state) {
    (void)state;
    reset();
    char why[256];
    ms_pod *none = fx_pod(&env.d, "metadata: {name: q}\nspec: {containers: [{name: c}], volumes: [{name: e, emptyDir: {}}]}");
    harness hx;
    vb_init(&hx, none);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SKIP);
    harness_free(&hx);
    ms_pod_unref(none);

    assert_int_equal(pre_filter_one("nope", why, sizeof why), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(why, "persistentvolumeclaim \"nope\" not found");
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    add(MS_SK_STORAGE_CLASS, "metadata: {name: std}\nprovisioner: example.com/csi");
    claim("gone", "local", ", deletionTimestamp: \"2024-01-01T00:00:00Z\"");
    assert_int_equal(pre_filter_one("gone", why, sizeof why), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(why, "persistentvolumeclaim \"gone\" is being deleted");
    claim("imm", "std", NULL);
    assert_int_equal(pre_filter_one("imm", why, sizeof why), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(why, "pod has unbound immediate PersistentVolumeClaims");
    /* no class at all: immediate too */
    claim("nocls", "\"\"", NULL);
    assert_int_equal(pre_filter_one("nocls", why, sizeof why), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    claim("wffc", "local", NULL);
    assert_int_equal(pre_filter_one("wffc", why, sizeof why), MS_SUCCESS);
    add(MS_SK_PVC, "metadata: {name: lost, namespace: default}\nspec: {volumeName: pv9}\nstatus: {phase: Lost}");
    assert_int_equal(pre_filter_one("lost", why, sizeof why), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(why, "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume \"pv9\"");
}

static void test_filter_reasons(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    local_pv("pv-n1", "10Gi", "n1");
    claim("wffc", "local", NULL);
    /* a bound claim whose PV lives on n1 */
    add(MS_SK_PV, "metadata: {name: bound-pv}\nspec: {capacity: {storage: 1Gi}, storageClassName: other,"
                  " nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions:"
                  " [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]}}}");
    add(MS_SK_PVC, "metadata: {name: bound, namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\n"
                   "spec: {volumeName: bound-pv}");
    add(MS_SK_PVC, "metadata: {name: dangling, namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\n"
                   "spec: {volumeName: missing-pv}");
    static const struct {
        const char *claim, *node;
        ms_code want;
        const char *reason;
    } cases[] = {
        {"wffc", "n1", MS_SUCCESS, NULL},
        {"wffc", "n2", MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't find available persistent volumes to bind"},
        {"bound", "n1", MS_SUCCESS, NULL},
        {"bound", "n2", MS_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had volume node affinity conflict"},
        {"dangling", "n1", MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
         "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_claims("p", cases[i].claim, NULL);
        harness hx;
        vb_init(&hx, pod);
        ms_status st;
        assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
        if (filter(&hx, cases[i].node, &st) != cases[i].want) fail_msg("case %zu", i);
        if (cases[i].reason) assert_string_equal(st.reasons[0], cases[i].reason);
        harness_free(&hx);
        ms_pod_unref(pod);
    }
}

/* Dynamic provisioning: allowed topologies, and CSIStorageCapacity when
 * the driver publishes capacity. */
static void test_filter_provisioning(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, "metadata: {name: zonal}\nprovisioner: d.example.com\nvolumeBindingMode: WaitForFirstConsumer\n"
                             "allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [z2]}]}]");
    claim("c", "zonal", NULL);
    ms_pod *pod = pod_claims("p", "c", NULL);
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(filter(&hx, "n1", &st), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(st.reasons[0], "node(s) didn't find available persistent volumes to bind");
    assert_int_equal(filter(&hx, "n2", &st), MS_SUCCESS);
    /* the driver publishes capacity: z2 has too little */
    add(MS_SK_CSI_DRIVER, "metadata: {name: d.example.com}\nspec: {storageCapacity: true}");
    add(MS_SK_CSI_CAPACITY, "metadata: {name: c1, namespace: kube-system}\nstorageClassName: zonal\n"
                            "nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z2}}\ncapacity: 512Mi");
    assert_int_equal(filter(&hx, "n2", &st), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(st.reasons[0], "node(s) did not have enough free storage");
    add(MS_SK_CSI_CAPACITY, "metadata: {name: c2, namespace: kube-system}\nstorageClassName: zonal\n"
                            "nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z2}}\ncapacity: 100Gi\n"
                            "maximumVolumeSize: 2Gi");
    assert_int_equal(filter(&hx, "n2", &st), MS_SUCCESS);
    harness_free(&hx);
    ms_pod_unref(pod);
}

/* Reserve assumes the smallest PV that fits on the node; a second pod's
 * claim gets the next; Unreserve gives them back. */
static void test_smallest_fit_and_reserve(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    local_pv("big", "100Gi", "n1");
    local_pv("small", "2Gi", "n1");
    local_pv("tiny", "512Mi", "n1");   /* too small for 1Gi */
    local_pv("elsewhere", "1Gi", "n2");
    claim("a", "local", NULL);
    claim("b", "local", NULL);
    ms_pod *pa = pod_claims("pa", "a", NULL), *pb = pod_claims("pb", "b", NULL);
    harness ha, hb;
    vb_init(&ha, pa);
    vb_init(&hb, pb);
    ms_status st;
    assert_int_equal(pre_filter(&ha, &st), MS_SUCCESS);
    assert_int_equal(ha.ops->reserve(ha.self, &ha.c, S("n1"), &st), MS_SUCCESS);
    const ms_storage_object *small = ms_volume_store_get(store, MS_SK_PV, MS_STR_NONE, S("small"));
    assert_true(ms_volume_store_is_assumed(store, MS_SK_PV, MS_STR_NONE, S("small")));
    assert_int_equal(small->u.pv.claim_name, S("a"));
    assert_string_equal(small->u.pv.claim_uid, "uid-a");
    /* the second pod sees small taken */
    assert_int_equal(pre_filter(&hb, &st), MS_SUCCESS);
    assert_int_equal(hb.ops->reserve(hb.self, &hb.c, S("n1"), &st), MS_SUCCESS);
    assert_int_equal(ms_volume_store_get(store, MS_SK_PV, MS_STR_NONE, S("big"))->u.pv.claim_name, S("b"));
    hb.ops->unreserve(hb.self, &hb.c, S("n1"));
    ha.ops->unreserve(ha.self, &ha.c, S("n1"));
    assert_false(ms_volume_store_is_assumed(store, MS_SK_PV, MS_STR_NONE, S("small")));
    assert_false(ms_volume_store_is_assumed(store, MS_SK_PV, MS_STR_NONE, S("big")));
    harness_free(&ha);
    harness_free(&hb);
    ms_pod_unref(pa);
    ms_pod_unref(pb);
}

/* Local PVs on both nodes: both nodes fit, each gets its own PV. */
static void test_pv_per_node(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    local_pv("pv-a", "10Gi", "n1");
    local_pv("pv-b", "10Gi", "n2");
    claim("c", "local", NULL);
    ms_pod *pod = pod_claims("p", "c", NULL);
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(filter(&hx, "n1", &st), MS_SUCCESS);
    assert_int_equal(filter(&hx, "n2", &st), MS_SUCCESS);
    assert_int_equal(hx.ops->reserve(hx.self, &hx.c, S("n2"), &st), MS_SUCCESS);
    assert_true(ms_volume_store_is_assumed(store, MS_SK_PV, MS_STR_NONE, S("pv-b")));
    double timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n2"), &timeout, &st), MS_WAIT);
    assert_int_equal(rec.pv, S("pv-b"));
    hx.ops->unreserve(hx.self, &hx.c, S("n2"));
    harness_free(&hx);
    ms_pod_unref(pod);
}

/* Two claims of one pod never get the same PV. */
static void test_two_claims_one_pod(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    local_pv("only", "10Gi", "n1");
    claim("a", "local", NULL);
    claim("b", "local", NULL);
    ms_pod *pod = pod_claims("p", "a", "b");
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(filter(&hx, "n1", &st), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    local_pv("second", "10Gi", "n1");
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(filter(&hx, "n1", &st), MS_SUCCESS);
    harness_free(&hx);
    ms_pod_unref(pod);
}

/* PreBind: the writes go to the binder once; the plugin waits until the
 * API objects show the claim bound, or fails at the deadline. */
static void test_pre_bind(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, LOCAL_SC);
    local_pv("pv1", "10Gi", "n1");
    claim("a", "local", NULL);
    ms_pod *pod = pod_claims("p", "a", NULL);
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(hx.ops->reserve(hx.self, &hx.c, S("n1"), &st), MS_SUCCESS);
    double timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n1"), &timeout, &st), MS_WAIT);
    assert_true(timeout == 600);
    assert_int_equal(rec.calls, 1);
    assert_int_equal(rec.nbindings, 1);
    assert_int_equal(rec.pv, S("pv1"));
    assert_int_equal(rec.claim_ref, S("a"));
    assert_true(rec.by_controller);
    /* called again (an event): no second write, still waiting */
    timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n1"), &timeout, &st), MS_WAIT);
    assert_int_equal(rec.calls, 1);
    /* the PV controller's work arrives through the informers */
    add(MS_SK_PV, "metadata: {name: pv1, resourceVersion: \"2\"}\nspec: {capacity: {storage: 10Gi}, storageClassName: local,"
                  " claimRef: {namespace: default, name: a, uid: uid-a}}\nstatus: {phase: Bound}");
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n1"), &timeout, &st), MS_WAIT);
    add(MS_SK_PVC, "metadata: {name: a, namespace: default, uid: uid-a, resourceVersion: \"3\","
                   " annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\nspec: {volumeName: pv1, storageClassName: local}\n"
                   "status: {phase: Bound}");
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n1"), &timeout, &st), MS_SUCCESS);
    harness_free(&hx);
    ms_pod_unref(pod);
}

static void test_pre_bind_failures(void **state) {
    (void)state;
    reset();
    add(MS_SK_STORAGE_CLASS, "metadata: {name: dyn}\nprovisioner: d.example.com\nvolumeBindingMode: WaitForFirstConsumer");
    claim("c", "dyn", NULL);
    ms_pod *pod = pod_claims("p", "c", NULL);
    harness hx;
    vb_init(&hx, pod);
    ms_status st;
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(hx.ops->reserve(hx.self, &hx.c, S("n2"), &st), MS_SUCCESS);
    assert_int_equal(ms_volume_store_get(store, MS_SK_PVC, S("default"), S("c"))->u.pvc.selected_node, S("n2"));
    double timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n2"), &timeout, &st), MS_WAIT);
    assert_int_equal(rec.nprovisions, 1);
    assert_int_equal(rec.selected, S("n2"));
    /* the deadline */
    timeout = -1;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n2"), &timeout, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "binding volumes: timed out waiting for the condition");
    /* the provisioner gave up: selected-node removed in a newer version */
    add(MS_SK_PVC, "metadata: {name: c, namespace: default, uid: uid-c, resourceVersion: \"9\"}\n"
                   "spec: {storageClassName: dyn}");
    timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n2"), &timeout, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "binding volumes: provisioning failed for PVC \"c\"");
    hx.ops->unreserve(hx.self, &hx.c, S("n2"));
    harness_free(&hx);
    ms_pod_unref(pod);

    /* a write the binder refuses fails PreBind with its message */
    reset();
    add(MS_SK_STORAGE_CLASS, "metadata: {name: dyn}\nprovisioner: d.example.com\nvolumeBindingMode: WaitForFirstConsumer");
    claim("c", "dyn", NULL);
    pod = pod_claims("p", "c", NULL);
    vb_init(&hx, pod);
    assert_int_equal(pre_filter(&hx, &st), MS_SUCCESS);
    assert_int_equal(hx.ops->reserve(hx.self, &hx.c, S("n2"), &st), MS_SUCCESS);
    rec.answer = MS_EIO;
    timeout = 0;
    assert_int_equal(hx.ops->pre_bind(hx.self, &hx.c, S("n2"), &timeout, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "binding volumes: the server said no");
    harness_free(&hx);
    ms_pod_unref(pod);
}

static void test_registered(void **state) {
    (void)state;
    const ms_plugin_ops *vb = ms_plugin_lookup("VolumeBinding");
    assert_non_null(vb);
    assert_null(vb->score);   /* upstream scores only behind an alpha gate */
    assert_true(vb->events & MS_EV_PV_ADD);
    assert_true(vb->events & MS_EV_PVC_UPDATE);
    assert_true(vb->events & MS_EV_STORAGE_CLASS_ADD);
    assert_true(vb->events & MS_EV_CSI_CAPACITY_ADD);
    assert_false(vb->events & MS_EV_ASSIGNED_POD_DELETE);
    /* arguments as upstream's VolumeBindingArgs */
    ms_handle h = {.in = env.in};
    void *self = NULL;
    ms_error err = {0};
    cJSON *args = cJSON_Parse("{\"bindTimeoutSeconds\": -1}");
    assert_int_equal(vb->create(args, &h, &self, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "bindTimeoutSeconds: Invalid value"));
    cJSON_Delete(args);
    args = cJSON_Parse("{\"bindTimeoutSecond\": 5}");
    assert_int_equal(vb->create(args, &h, &self, &err), MS_EINVAL);
    cJSON_Delete(args);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pre_filter),
        cmocka_unit_test(test_filter_reasons),
        cmocka_unit_test(test_filter_provisioning),
        cmocka_unit_test(test_smallest_fit_and_reserve),
        cmocka_unit_test(test_pv_per_node),
        cmocka_unit_test(test_two_claims_one_pod),
        cmocka_unit_test(test_pre_bind),
        cmocka_unit_test(test_pre_bind_failures),
        cmocka_unit_test(test_registered),
    };
    return cmocka_run_group_tests(tests, vb_setup, vb_teardown);
}
