/* NodeVolumeLimits: the pods PreFilter skips as upstream does, and Filter
 * while no volume resolves to a CSI driver. */
#include "testutil.h"

#include "volume_fixtures.h"

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

/* Without PVC, PV, StorageClass and CSINode objects no volume resolves to a
 * CSI driver: Filter admits the node even when it reports a limit of 0. */
static void test_node_volume_limits_filter_passes(void **state) {
    (void)state;
    ms_pod *pod = pod_with("p", "[{name: a, persistentVolumeClaim: {claimName: c1}},"
                                " {name: b, persistentVolumeClaim: {claimName: c2}}]");
    ms_pod *pods[2] = {pod_with("x", "[{name: a, persistentVolumeClaim: {claimName: c3}}]"),
                       pod_with("y", GCE_FOO)};
    harness hx;
    harness_init(&hx, "NodeVolumeLimits", pod);
    ms_node_info *ni = ms_node_info_new(ms_intern_cstr(env.in, "n1"));
    ms_node *node = fx_node(&env.d, "metadata: {name: n1}\n"
                                    "status: {allocatable: {attachable-volumes-csi-ebs.csi.aws.com: \"0\","
                                    " attachable-volumes-gce-pd: \"0\", pods: \"10\"}}\n");
    ms_node_info_set_node(ni, node);
    for (int i = 0; i < 2; i++) assert_int_equal(ms_node_info_add_pod(ni, pods[i], env.in), 0);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(hx.ops->filter(NULL, &hx.c, ni, &st), MS_SUCCESS);
    assert_int_equal(st.nreasons, 0);
    ms_node_info_free(ni);
    ms_node_unref(node);
    harness_free(&hx);
    ms_pod_unref(pod);
    for (int i = 0; i < 2; i++) ms_pod_unref(pods[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_volume_limits_pre_filter),
        cmocka_unit_test(test_node_volume_limits_filter_passes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
