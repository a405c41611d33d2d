/* A pod's spec.resourceClaims and status.resourceClaimStatuses as a 1.34
 * API server sends them, and the errors its validation gives. */
#include "testutil.h"

#include "fixtures.h"

FX_DECODER_FIXTURE


static void test_claims_and_statuses(void **state) {
    (void)state;
    ms_pod *p = fx_pod(&env.d,
                       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"job\",\"namespace\":\"ml\","
                       "\"uid\":\"9f3e\"},\"spec\":{\"containers\":[{\"name\":\"train\",\"image\":\"trainer:1\","
                       "\"resources\":{\"claims\":[{\"name\":\"gpu\"},{\"name\":\"nic\",\"request\":\"rdma\"}]}}],"
                       "\"resourceClaims\":[{\"name\":\"gpu\",\"resourceClaimTemplateName\":\"two-gpus\"},"
                       "{\"name\":\"nic\",\"resourceClaimName\":\"shared-nic\"}]},"
                       "\"status\":{\"phase\":\"Pending\",\"resourceClaimStatuses\":[{\"name\":\"gpu\","
                       "\"resourceClaimName\":\"job-gpu-8xk2p\"}]}}");
    assert_int_equal(p->nresource_claims, 2);
    assert_string_equal(T(p->resource_claims[0].name), "gpu");
    assert_null(T(p->resource_claims[0].claim_name));
    assert_string_equal(T(p->resource_claims[0].template_name), "two-gpus");
    assert_string_equal(T(p->resource_claims[1].name), "nic");
    assert_string_equal(T(p->resource_claims[1].claim_name), "shared-nic");
    assert_null(T(p->resource_claims[1].template_name));
    assert_int_equal(p->nresource_claim_statuses, 1);
    assert_string_equal(T(p->resource_claim_statuses[0].name), "gpu");
    assert_string_equal(T(p->resource_claim_statuses[0].claim_name), "job-gpu-8xk2p");
    ms_pod_unref(p);

    /* a generated entry without a claim: none was needed */
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]}\n"
                       "status: {resourceClaimStatuses: [{name: gpu}]}\n");
    assert_int_equal(p->nresource_claim_statuses, 1);
    assert_null(T(p->resource_claim_statuses[0].claim_name));
    ms_pod_unref(p);

    /* absent, empty or null: none */
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {resourceClaims: [], containers: [{name: c}]}\n");
    assert_int_equal(p->nresource_claims, 0);
    ms_pod_unref(p);
    p = fx_pod(&env.d, "metadata: {name: a}\nspec: {resourceClaims: null}\nstatus: {resourceClaimStatuses: null}\n");
    assert_int_equal(p->nresource_claims, 0);
    assert_null(p->resource_claims);
    assert_int_equal(p->nresource_claim_statuses, 0);
    ms_pod_unref(p);
}

#define LABEL_RULE                                                                                      \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "  \
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "      \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define SUBDOMAIN_RULE                                                                                  \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "  \
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "       \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

static void test_errors(void **state) {
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"metadata: {name: w}\nspec: {resourceClaims: {name: gpu}}\n",
         "Pod default/w: spec.resourceClaims: expected array, got object"},
        {"metadata: {name: w}\nspec: {resourceClaims: [gpu]}\n",
         "Pod default/w: spec.resourceClaims[0]: expected object, got string"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{resourceClaimName: c}]}\n",
         "Pod default/w: spec.resourceClaims[0].name: Required value"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: GPU, resourceClaimName: c}]}\n",
         "Pod default/w: spec.resourceClaims[0].name: Invalid value: \"GPU\": " LABEL_RULE},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimName: c}, "
         "{name: a, resourceClaimTemplateName: t}]}\n",
         "Pod default/w: spec.resourceClaims[1].name: Duplicate value: \"a\""},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a}]}\n",
         "Pod default/w: spec.resourceClaims[0]: Invalid value: \"a\": must specify one of: "
         "`resourceClaimName`, `resourceClaimTemplateName`"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimName: c, resourceClaimTemplateName: t}]}\n",
         "Pod default/w: spec.resourceClaims[0]: Invalid value: \"a\": at most one of `resourceClaimName` or "
         "`resourceClaimTemplateName` may be specified"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimName: My_Claim}]}\n",
         "Pod default/w: spec.resourceClaims[0].resourceClaimName: Invalid value: \"My_Claim\": " SUBDOMAIN_RULE},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimTemplateName: \"\"}]}\n",
         "Pod default/w: spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: \"\": " SUBDOMAIN_RULE},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimName: 7}]}\n",
         "Pod default/w: spec.resourceClaims[0].resourceClaimName: expected string, got number"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimTemplateName: t}]}\n"
         "status: {resourceClaimStatuses: [{name: b, resourceClaimName: w-b}]}\n",
         "Pod default/w: status.resourceClaimStatuses[0].name: Invalid value: \"b\": must match the name of an "
         "entry in `spec.resourceClaims`"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimTemplateName: t}]}\n"
         "status: {resourceClaimStatuses: [{name: a}, {name: a}]}\n",
         "Pod default/w: status.resourceClaimStatuses[1].name: Duplicate value: \"a\""},
        {"metadata: {name: w}\nstatus: {resourceClaimStatuses: [{resourceClaimName: x}]}\n",
         "Pod default/w: status.resourceClaimStatuses[0].name: Required value"},
        {"metadata: {name: w}\nspec: {resourceClaims: [{name: a, resourceClaimTemplateName: t}]}\n"
         "status: {resourceClaimStatuses: [{name: a, resourceClaimName: W..x}]}\n",
         "Pod default/w: status.resourceClaimStatuses[0].resourceClaimName: Invalid value: \"W..x\": " SUBDOMAIN_RULE},
    };
    ms_error err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *msg = fx_pod_error(&env.d, cases[i].text, &err);
        if (strcmp(msg, cases[i].msg) != 0) fail_msg("case %zu: got \"%s\", want \"%s\"", i, msg, cases[i].msg);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claims_and_statuses),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, fx_group_setup, fx_group_teardown);
}
