/* VolumeZone, as upstream's volume_zone_test.go: a bound PV's zone and
 * region labels (GA and beta, "a__b" lists) against the node's; nodes
 * without topology labels pass; unbound WaitForFirstConsumer claims are
 * left to VolumeBinding; a missing claim or PV is unresolvable. */
#include "testutil.h"

#include "volume_fixtures.h"

static void bound(const char *claim, const char *pv, const char *labels) {
    char text[512];
    snprintf(text, sizeof text, "metadata: {name: %s, labels: {%s}}\nspec: {capacity: {storage: 1Gi}}", pv, labels);
    store_add(MS_SK_PV, text);
    snprintf(text, sizeof text, "metadata: {name: %s, namespace: default}\nspec: {volumeName: %s}", claim, pv);
    store_add(MS_SK_PVC, text);
}

static ms_code zone_filter(const char *claim, const char *node_labels, const char **reason, ms_code *pre) {
    char vols[128], text[256];
    snprintf(vols, sizeof vols, "[{name: v, persistentVolumeClaim: {claimName: %s}}]", claim);
    ms_pod *pod = pod_with("p", vols);
    harness hx;
    harness_init(&hx, "VolumeZone", pod);
    ms_status st;
    ms_status_ok(&st);
    *pre = hx.ops->pre_filter(NULL, &hx.c, &st);
    *reason = NULL;
    ms_code code = *pre;
    if (*pre == MS_SUCCESS) {
        snprintf(text, sizeof text, "metadata: {name: n1, labels: {%s}}", node_labels);
        ms_node *node = fx_node(&env.d, text);
        ms_node_info *ni = ms_node_info_new(node->meta.name);
        ms_node_info_set_node(ni, node);
        ms_status_ok(&st);
        code = hx.ops->filter(NULL, &hx.c, ni, &st);
        ms_node_info_free(ni);
        ms_node_unref(node);
    }
    static char keep[256];
    snprintf(keep, sizeof keep, "%s", st.nreasons ? st.reasons[0] : "");
    *reason = keep;
    harness_free(&hx);
    ms_pod_unref(pod);
    return code;
}

static void test_volume_zone(void **state) {
    (void)state;
    bound("zoned", "pv-a", "topology.kubernetes.io/zone: us-a, topology.kubernetes.io/region: us");
    bound("multi", "pv-m", "topology.kubernetes.io/zone: us-a__us-b");
    bound("beta", "pv-beta", "failure-domain.beta.kubernetes.io/zone: us-a");
    bound("plain", "pv-p", "disk: ssd");
    static const struct {
        const char *claim, *node;
        ms_code pre, want;
    } cases[] = {
        {"zoned", "topology.kubernetes.io/zone: us-a, topology.kubernetes.io/region: us", MS_SUCCESS, MS_SUCCESS},
        {"zoned", "topology.kubernetes.io/zone: us-b, topology.kubernetes.io/region: us", MS_SUCCESS,
         MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"zoned", "other: x", MS_SUCCESS, MS_SUCCESS},   /* no topology label on the node */
        {"zoned", "topology.kubernetes.io/region: us", MS_SUCCESS, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"multi", "topology.kubernetes.io/zone: us-b", MS_SUCCESS, MS_SUCCESS},
        {"multi", "topology.kubernetes.io/zone: us-c", MS_SUCCESS, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"beta", "topology.kubernetes.io/zone: us-a", MS_SUCCESS, MS_SUCCESS},   /* beta PV, GA node */
        {"beta", "failure-domain.beta.kubernetes.io/zone: us-b", MS_SUCCESS, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"plain", "topology.kubernetes.io/zone: us-a", MS_SKIP, MS_SKIP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *reason;
        ms_code pre;
        ms_code code = zone_filter(cases[i].claim, cases[i].node, &reason, &pre);
        if (pre != cases[i].pre || code != cases[i].want) fail_msg("case %zu: %d %d", i, pre, code);
        if (code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE)
            assert_string_equal(reason, "node(s) had no available volume zone");
    }
    store_reset();
}

static void test_volume_zone_claims(void **state) {
    (void)state;
    const char *reason;
    ms_code pre;
    assert_int_equal(zone_filter("nope", "", &reason, &pre), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(reason, "persistentvolumeclaim \"nope\" not found");
    store_add(MS_SK_STORAGE_CLASS, "metadata: {name: wffc}\nprovisioner: x\nvolumeBindingMode: WaitForFirstConsumer");
    store_add(MS_SK_STORAGE_CLASS, "metadata: {name: now}\nprovisioner: x");
    store_add(MS_SK_PVC, "metadata: {name: later, namespace: default}\nspec: {storageClassName: wffc}");
    store_add(MS_SK_PVC, "metadata: {name: unbound, namespace: default}\nspec: {storageClassName: now}");
    store_add(MS_SK_PVC, "metadata: {name: classless, namespace: default}");
    store_add(MS_SK_PVC, "metadata: {name: dangling, namespace: default}\nspec: {volumeName: nothere}");
    assert_int_equal(zone_filter("later", "", &reason, &pre), MS_SKIP);
    assert_int_equal(zone_filter("unbound", "", &reason, &pre), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(reason, "PersistentVolume had no name");
    assert_int_equal(zone_filter("classless", "", &reason, &pre), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(reason, "PersistentVolumeClaim had no pv name and storageClass name");
    assert_int_equal(zone_filter("dangling", "", &reason, &pre), MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(reason, "persistentvolume \"nothere\" not found");
    store_reset();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_volume_zone),
        cmocka_unit_test(test_volume_zone_claims),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
