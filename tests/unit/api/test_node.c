/* Nodes: a new node is empty with one reference, and references keep it
 * alive. */
#include "testutil.h"

#include "fixtures.h"
#include "moonsched/node.h"

static void test_alloc_ref_unref(void **state) {
    (void)state;
    ms_node *n = ms_node_alloc();
    assert_non_null(n);
    assert_int_equal(atomic_load(&n->refs), 1);
    assert_int_equal(n->meta.name, MS_STR_NONE);
    assert_int_equal(n->ntaints, 0);
    assert_false(n->unschedulable);
    assert_ptr_equal(ms_node_ref(n), n);
    assert_int_equal(atomic_load(&n->refs), 2);
    ms_node_unref(n);
    ms_node_unref(n);
    ms_node_unref(NULL);
}

/* A decoded node's fields live in its arena until the last reference goes. */
static void test_decoded_node_outlives_its_first_reference(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_node *n = fx_node(&env.d, "metadata: {name: n1, labels: {zone: a}}\n"
                                 "spec: {unschedulable: true, taints: [{key: k, effect: NoSchedule}]}");
    ms_node *held = ms_node_ref(n);
    ms_node_unref(n);
    assert_string_equal(ms_str_get(env.in, held->meta.name), "n1");
    assert_true(held->unschedulable);
    assert_int_equal(held->ntaints, 1);
    assert_int_equal(held->meta.labels.n, 1);
    ms_node_unref(held);
    fx_env_free(&env);
}

/* A kubelet's node with taints, images and conditions fits in one small
 * first block: the arena's next block is at most 1 KiB, so the node holds
 * at most 512 bytes besides its struct (a 2048-byte first block held 1.5
 * KiB unused per node). */
static void test_kubelet_node_fits_a_small_arena(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_node *n = fx_node(&env.d,
                         "metadata: {name: node-1, uid: 3d0e8c5e-0000-1111-2222-333344445555,\n"
                         "  resourceVersion: \"42\", labels: {kubernetes.io/hostname: node-1}}\n"
                         "spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule},\n"
                         "  {key: spot, effect: PreferNoSchedule}]}\n"
                         "status:\n"
                         "  capacity: {cpu: \"4\", memory: 16393640Ki, pods: \"110\", nvidia.com/gpu: \"2\"}\n"
                         "  allocatable: {cpu: 3800m, memory: 15270312Ki, pods: \"110\", nvidia.com/gpu: \"2\"}\n"
                         "  conditions: [{type: Ready, status: \"True\"}, {type: MemoryPressure, status: \"False\"}]\n"
                         "  images: [{names: [registry.k8s.io/etcd:3.5.9-0], sizeBytes: 102894559},\n"
                         "    {names: [docker.io/library/nginx], sizeBytes: 70000000}]\n");
    assert_int_equal(n->ntaints, 2);
    assert_int_equal(n->nimages, 2);
    assert_in_range(n->arena.total, 1, 512);
    assert_in_range(n->arena.block_size, 1, 1024);
    ms_node_unref(n);
    fx_env_free(&env);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_ref_unref),
        cmocka_unit_test(test_decoded_node_outlives_its_first_reference),
        cmocka_unit_test(test_kubelet_node_fits_a_small_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
