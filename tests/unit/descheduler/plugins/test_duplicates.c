/* RemoveDuplicates: the surplus over an even spread across the nodes the
 * pods could run on, per owner and images. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

static void four_on_n1(dx_env *e, const char *n3_spec) {
    dx_node(e, "n1", 8000, 8192, 110, "", "");
    dx_node(e, "n2", 8000, 8192, 110, "", "");
    dx_node(e, "n3", 8000, 8192, 110, "", n3_spec);
    dx_pod(e, "a1", "n1", 100, 100, "", "");
    dx_pod(e, "a2", "n1", 100, 100, "", "");
    dx_pod(e, "a3", "n1", 100, 100, "", "");
    dx_pod(e, "a4", "n1", 100, 100, "", "");
    dx_pod(e, "b1", "n2", 100, 100, "", "");
}

static void three_targets(dx_env *e) { four_on_n1(e, ""); }
static void two_targets(dx_env *e) { four_on_n1(e, "taints: [{key: k, effect: NoSchedule}]"); }

static void other_images(dx_env *e) {
    three_targets(e);
    /* same owner, another image: not a duplicate of the others */
    dx_pod_yaml(e, "n1", "metadata: {name: x, namespace: default, uid: u-x, ownerReferences: "
                         "[{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid}]}\n"
                         "spec: {containers: [{name: c, image: other}]}\nstatus: {phase: Running}\n");
}

static void one_node(dx_env *e) {
    dx_node(e, "n1", 8000, 8192, 110, "", "");
    dx_pod(e, "a1", "n1", 100, 100, "", "");
    dx_pod(e, "a2", "n1", 100, 100, "", "");
}

static void test_even_spread(void **state) {
    (void)state;
    /* five pods over three nodes: at most two per node */
    dx_expect(three_targets, "", "RemoveDuplicates", "balance", "", "a3,a4");
    /* over two nodes: at most three */
    dx_expect(two_targets, "", "RemoveDuplicates", "balance", "", "a4");
    dx_expect(other_images, "", "RemoveDuplicates", "balance", "", "a3,a4");
    /* one node only: nowhere to spread to */
    dx_expect(one_node, "", "RemoveDuplicates", "balance", "", "");
}

static void test_args(void **state) {
    (void)state;
    dx_expect(three_targets, "", "RemoveDuplicates", "balance", "excludeOwnerKinds: [ReplicaSet]", "");
    dx_expect(three_targets, "", "RemoveDuplicates", "balance", "namespaces: {exclude: [default]}", "");
    dx_expect(three_targets, "maxNoOfPodsToEvictPerNode: 1\n", "RemoveDuplicates", "balance", "", "a3");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_even_spread),
        cmocka_unit_test(test_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
