/* DynamicResources: a pod without claims skips the plugin; a pod with
 * claims is refused in PreFilter, for every node at once, with a reason
 * that says why, until the scheduler allocates claims itself. */
#include "testutil.h"

#include "plugin_harness.h"

#define NOT_ALLOCATABLE "pod has resource claims, which moonsched cannot allocate yet"

static void test_pre_filter(void **state) {
    (void)state;
    ms_pod_resource_claim direct = {S("gpu"), S("shared-gpu"), MS_STR_NONE};
    ms_pod_resource_claim templated = {S("nic"), MS_STR_NONE, S("one-nic")};
    ms_pod_resource_claim_status generated = {S("nic"), S("job-nic-x7k2p")};
    static const struct {
        const char *name;
        bool direct, templated, generated;
        ms_code want;
    } cases[] = {
        {"no claims", false, false, false, MS_SKIP},
        {"a claim by name", true, false, false, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"a claim from a template, not generated", false, true, false, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"a claim from a template, generated", false, true, true, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {"both", true, true, true, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod *pod = pod_with(NULL);
        ms_pod_resource_claim claims[2];
        uint32_t n = 0;
        if (cases[i].direct) claims[n++] = direct;
        if (cases[i].templated) claims[n++] = templated;
        pod->resource_claims = n ? claims : NULL;
        pod->nresource_claims = n;
        pod->resource_claim_statuses = cases[i].generated ? &generated : NULL;
        pod->nresource_claim_statuses = cases[i].generated;
        harness hx;
        harness_init(&hx, "DynamicResources", pod);
        ms_status st;
        ms_status_ok(&st);
        ms_code got = hx.ops->pre_filter(hx.self, &hx.c, &st);
        if (got != cases[i].want) fail_msg("%s: code %d, want %d", cases[i].name, got, cases[i].want);
        if (got == MS_UNSCHEDULABLE_AND_UNRESOLVABLE) {
            assert_int_equal(st.nreasons, 1);
            assert_string_equal(st.reasons[0], NOT_ALLOCATABLE);
        }
        pod->resource_claims = NULL;
        pod->nresource_claims = 0;
        pod->resource_claim_statuses = NULL;
        pod->nresource_claim_statuses = 0;
        harness_free(&hx);
        ms_pod_unref(pod);
    }
}

/* Registered under upstream's name; nothing per node; spec.resourceClaims
 * is immutable, so only the pod's own update is worth a retry. */
static void test_ops(void **state) {
    (void)state;
    const ms_plugin_ops *o = ms_plugin_lookup("DynamicResources");
    assert_non_null(o);
    assert_non_null(o->pre_filter);
    assert_null(o->filter);
    assert_int_equal(o->events, MS_EV_UNSCHEDULED_POD_UPDATE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pre_filter),
        cmocka_unit_test(test_ops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
