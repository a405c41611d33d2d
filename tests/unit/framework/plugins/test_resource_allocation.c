/* The scorer NodeResourcesFit and NodeResourcesBalancedAllocation share
 * (resource_allocation.c): its straight-line cpu-and-memory path gives the
 * general path's scores on random nodes. */
#include "testutil.h"

#include "resource_fixtures.h"

/* Scores of nodes[0..n) under `args` (PreScore, then Score). */
static void score_with(fx *f, const ms_plugin_ops *ops, const char *args, ms_pod *pod,
                       ms_node_info **list, uint32_t n, int64_t *scores) {
    void *self = create(f, ops, args);
    begin_cycle(f, pod);
    ms_status st;
    ms_status_ok(&st);
    assert_int_equal(ops->pre_score(self, &f->c, list, n, &st), MS_SUCCESS);
    assert_int_equal(ops->score(self, &f->c, list, n, scores, &st), MS_SUCCESS);
    ops->destroy(self);
}

static uint64_t next_rand(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A value in [0, max], often one of the edges. */
static int64_t draw(uint64_t *x, int64_t max) {
    switch (next_rand(x) % 8) {
    case 0: return 0;
    case 1: return max;
    default: return (int64_t)(next_rand(x) % (uint64_t)(max + 1));
    }
}

/* cpu and memory alone are scored by straight-line code; adding a
 * resource the pod does not request changes nothing in the score but
 * takes the general path. Both must agree on every node: empty, full,
 * overcommitted, without allocatable, without a Node object. */
static void test_cpu_memory_path_matches_general_path(void **state) {
    fx *f = *state;
    static const struct {
        const ms_plugin_ops *ops;
        const char *fast, *general;
    } configs[] = {
        {&ms_plugin_node_resources_fit, NULL, EXT_SET("LeastAllocated")},
        {&ms_plugin_node_resources_fit, MOST, EXT_SET("MostAllocated")},
        {&ms_plugin_node_resources_fit, LEAST_MEM2,
         "{\"scoringStrategy\": {\"type\": \"LeastAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 2}, {\"name\": \"" EXT "\", \"weight\": 7}, {\"name\": \"cpu\", \"weight\": 1}]}}"},
        {&ms_plugin_node_resources_fit, MOST_MEM2,
         "{\"scoringStrategy\": {\"type\": \"MostAllocated\", \"resources\": [{\"name\": \"memory\", "
         "\"weight\": 2}, {\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"" EXT "\", \"weight\": 3}]}}"},
        {&ms_plugin_node_resources_balanced_allocation, NULL,
         "{\"resources\": [{\"name\": \"cpu\", \"weight\": 1}, {\"name\": \"memory\", \"weight\": 1}, "
         "{\"name\": \"" EXT "\", \"weight\": 1}]}"},
        {&ms_plugin_node_resources_balanced_allocation,
         "{\"resources\": [{\"name\": \"memory\"}, {\"name\": \"cpu\"}]}",
         "{\"resources\": [{\"name\": \"" EXT "\"}, {\"name\": \"memory\"}, {\"name\": \"cpu\"}]}"},
    };
    enum { ROUNDS = 300, N = 8 };
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < ROUNDS; round++) {
        ms_node *nodes[N];
        ms_node_info nis[N];
        ms_node_info *list[N];
        for (uint32_t k = 0; k < N; k++) {
            int64_t cpu = draw(&x, 64000), mem = draw(&x, 256LL << 30);
            rsrc alloc = {cpu, mem, .scalar = {{EXT, draw(&x, 8)}}};
            nodes[k] = make_node(f, "n", alloc, 110);
            int64_t ucpu = draw(&x, cpu + cpu / 2 + 1), umem = draw(&x, mem + mem / 2 + 1);
            make_ni(f, &nis[k], nodes[k], 3, (rsrc){ucpu, umem}, ucpu + draw(&x, 300),
                    umem + draw(&x, 600 * MI));
            list[k] = &nis[k];
        }
        nis[round % N].node = NULL;   /* pods of a node not seen yet */
        int64_t pcpu = draw(&x, 8000), pmem = draw(&x, 16LL << 30);
        ms_pod *pod = make_pod(f, (rsrc){pcpu, pmem}, pcpu ? pcpu : 100, pmem ? pmem : 200 * MI);
        for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
            /* Balanced skips pods that request neither resource. */
            if (configs[c].ops == &ms_plugin_node_resources_balanced_allocation && !pcpu && !pmem)
                continue;
            int64_t fast[N], general[N];
            score_with(f, configs[c].ops, configs[c].fast, pod, list, N, fast);
            score_with(f, configs[c].ops, configs[c].general, pod, list, N, general);
            for (uint32_t k = 0; k < N; k++)
                if (fast[k] != general[k])
                    fail_msg("round %d, config %zu, node %u: %lld on the cpu-memory path, %lld on "
                             "the general one", round, c, k, (long long)fast[k], (long long)general[k]);
        }
        ms_pod_unref(pod);
        for (uint32_t k = 0; k < N; k++) {
            ms_resources_free(&nis[k].requested);
            ms_node_unref(nodes[k]);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cpu_memory_path_matches_general_path, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
