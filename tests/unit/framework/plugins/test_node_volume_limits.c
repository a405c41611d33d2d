/* NodeVolumeLimits: the pods PreFilter skips as upstream does, and Filter's
 * count of unique CSI volumes per driver against the node's limits. */
#include "testutil.h"

#include "volume_fixtures.h"

#define PVC_C3 "[{name: v, persistentVolumeClaim: {claimName: c3}}]"

/* NodeVolumeLimits: PreFilter skips the pods upstream skips (no claim, no
 * generic ephemeral volume, no inline volume CSI migration translates). */
static void test_node_volume_limits_pre_filter(void **state) {
    (void)state;
    static const struct {
        const char *volumes;
        ms_code want;
    } cases[] = {
        {NULL, MS_SKIP},
        {EMPTY_DIR, MS_SKIP},
        {"[{name: a, configMap: {name: c}}, {name: b, secret: {secretName: s}}]", MS_SKIP},
        {"[{name: a, csi: {driver: d}}]", MS_SKIP},
        {RBD_AB, MS_SKIP},
        {ISCSI_16, MS_SKIP},
        {PVC_A, MS_SUCCESS},
        {"[{name: a, ephemeral: {volumeClaimTemplate: {spec: {}}}}]", MS_SUCCESS},
        {GCE_FOO, MS_SUCCESS},
        {AWS_FOO, MS_SUCCESS},
        {"[{name: a, azureDisk: {diskName: d, diskURI: u}}]", MS_SUCCESS},
        {"[{name: a, cinder: {volumeID: v}}]", MS_SUCCESS},
        {"[{name: a, emptyDir: {}}, {name: b, persistentVolumeClaim: {claimName: c}}]", MS_SUCCESS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with("p", cases[i].volumes);
        if (run_pre_filter("NodeVolumeLimits", pod) != cases[i].want)
            fail_msg("case %zu: %s", i, cases[i].volumes ? cases[i].volumes : "no volumes");
        ms_pod_unref(pod);
    }
}

/* PreFilter, then Filter on node n1 holding `existing` (a volumes list; NULL: no pod). */
static ms_code filter_on_n1(const char *volumes, const char *existing, const char *alloc, const char **reason) {
    ms_pod *pod = pod_with("p", volumes);
    ms_pod *other = existing ? pod_with("x", existing) : NULL;
    harness hx;
    harness_init(&hx, "NodeVolumeLimits", pod);
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(env.in, "n1"));
    char text[256];
    snprintf(text, sizeof text, "metadata: {name: n1}\nstatus: {allocatable: {pods: \"10\"%s%s}}\n",
             alloc ? ", " : "", alloc ? alloc : "");
    ms_node *node = fx_node(&env.d, text);
    ms_node_info_set_node(ni, node);
    if (other) assert_int_equal(ms_node_info_add_pod(ni, other, env.in), 0);
    ms_status st;
    ms_status_ok(&st);
    ms_code code = hx.ops->pre_filter(NULL, &hx.c, &st);
    if (code == MS_SKIP) code = MS_SUCCESS;
    else if (code == MS_SUCCESS) code = hx.ops->filter(NULL, &hx.c, ni, &st);
    *reason = st.nreasons ? st.reasons[0] : NULL;
    static char keep[256];
    if (*reason) {
        snprintf(keep, sizeof keep, "%s", *reason);
        *reason = keep;
    }
    ms_node_info_free(ni);
    ms_node_unref(node);
    harness_free(&hx);
    ms_pod_unref(pod);
    if (other) ms_pod_unref(other);
    return code;
}

#define CLAIMS(a, b) "[{name: a, persistentVolumeClaim: {claimName: " a "}}, {name: b, persistentVolumeClaim: {claimName: " b "}}]"

static void bound_claim(int i) {
    char text[512];
    snprintf(text, sizeof text,
             "metadata: {name: pv%d}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce],"
             " csi: {driver: ebs.csi.aws.com, volumeHandle: vol-%d}, claimRef: {namespace: default, name: c%d}}\n"
             "status: {phase: Bound}", i, i, i);
    store_add(MS_SK_PV, text);
    snprintf(text, sizeof text,
             "metadata: {name: c%d, namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\n"
             "spec: {volumeName: pv%d, accessModes: [ReadWriteOnce]}\nstatus: {phase: Bound}", i, i);
    store_add(MS_SK_PVC, text);
}

/* upstream's CSI limits: unique volumes per driver against the CSINode's
 * allocatable count; a volume shared with a pod on the node counts once; a
 * missing claim of the incoming pod is unresolvable. */
static void test_node_volume_limits_counts(void **state) {
    (void)state;
    const char *reason;
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c2"), NULL, NULL, &reason), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(reason, "looking up PVC default/c1: persistentvolumeclaim \"c1\" not found");
    for (int i = 1; i <= 3; i++) bound_claim(i);
    /* no limit known: everything fits */
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c2"), PVC_C3, NULL, &reason), MS_SUCCESS);
    store_add(MS_SK_CSI_NODE, "metadata: {name: n1}\n"
                              "spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 2}}]}");
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c2"), PVC_C3, NULL, &reason), MS_UNSCHEDULABLE);
    assert_string_equal(reason, "node(s) exceed max volume count");
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c2"), NULL, NULL, &reason), MS_SUCCESS);
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c3"), PVC_C3, NULL, &reason), MS_SUCCESS);
    store_reset();
    /* the node's attachable-volumes-csi-<driver> when no CSINode count */
    for (int i = 1; i <= 3; i++) bound_claim(i);
    assert_int_equal(filter_on_n1(CLAIMS("c1", "c2"), NULL, "attachable-volumes-csi-ebs.csi.aws.com: \"1\"", &reason),
                     MS_UNSCHEDULABLE);
    store_reset();
}

/* Inline in-tree volumes count once CSI migration applies (a CSINode
 * exists): a GCE PD against pd.csi.storage.gke.io. */
static void test_node_volume_limits_inline_migrated(void **state) {
    (void)state;
    const char *reason;
    assert_int_equal(filter_on_n1(GCE_BAR, GCE_FOO, NULL, &reason), MS_SUCCESS);
    store_add(MS_SK_CSI_NODE, "metadata: {name: n1}\n"
                              "spec: {drivers: [{name: pd.csi.storage.gke.io, nodeID: n1, allocatable: {count: 1}}]}");
    assert_int_equal(filter_on_n1(GCE_BAR, GCE_FOO, NULL, &reason), MS_UNSCHEDULABLE);
    assert_int_equal(filter_on_n1(GCE_FOO, GCE_FOO, NULL, &reason), MS_SUCCESS);
    store_reset();
}

/* A claim without a PV counts against its class's provisioner. */
static void test_node_volume_limits_unbound_claim(void **state) {
    (void)state;
    const char *reason;
    store_add(MS_SK_STORAGE_CLASS, "metadata: {name: ebs}\nprovisioner: ebs.csi.aws.com");
    store_add(MS_SK_PVC, "metadata: {name: c1, namespace: default}\nspec: {storageClassName: ebs}");
    store_add(MS_SK_CSI_NODE, "metadata: {name: n1}\n"
                              "spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 0}}]}");
    assert_int_equal(filter_on_n1("[{name: a, persistentVolumeClaim: {claimName: c1}}]", NULL, NULL, &reason),
                     MS_UNSCHEDULABLE);
    store_reset();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_volume_limits_pre_filter),
        cmocka_unit_test(test_node_volume_limits_counts),
        cmocka_unit_test(test_node_volume_limits_inline_migrated),
        cmocka_unit_test(test_node_volume_limits_unbound_claim),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
