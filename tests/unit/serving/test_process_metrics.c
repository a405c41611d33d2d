/* The process collector's families, read from /proc at each scrape. */
#include "testutil.h"

#include "metrics_states.h"
#include "serving/process_metrics.h"

static void test_process_families(void **state) {
    (void)state;
    size_t len;
    char *t = metrics_render_one(ms_process_metrics_collect, NULL, &len);
    assert_non_null(t);
    assert_true(tu_series(t, "process_cpu_seconds_total") >= 0);
    assert_true(tu_series(t, "process_resident_memory_bytes") > 0);
    assert_true(tu_series(t, "process_virtual_memory_bytes") > 0);
    assert_true(tu_series(t, "process_open_fds") > 0);
    assert_true(tu_series(t, "process_max_fds") > 0);
    assert_true(tu_series(t, "process_start_time_seconds") > 1.5e9);
    assert_true(tu_series(t, "moonsched_threads") >= 1);
    free(t);
}

static char *render(void) {
    size_t len;
    char *t = metrics_render_one(ms_process_metrics_collect, NULL, &len);
    assert_non_null(t);
    return t;
}

/* The heap gauges follow what the process holds: a block allocated and
 * touched shows in use, and leaves it when freed. (Under ASan its own
 * allocator serves malloc, and its mallinfo2 answers zeros.) */
static void test_heap_gauges(void **state) {
    (void)state;
    char *t = render();
    double used0 = tu_series(t, "moonsched_heap_inuse_bytes");
    assert_true(used0 >= 0);
    assert_true(tu_series(t, "moonsched_heap_free_bytes") >= 0);
    free(t);
#ifndef __SANITIZE_ADDRESS__
    assert_true(used0 > 0);
    size_t big = (size_t)8 << 20;
    char *block = malloc(big);
    assert_non_null(block);
    /* (through a volatile pointer: the block must not be optimized away) */
    void *(*volatile fill)(void *, int, size_t) = memset;
    fill(block, 1, big);
    t = render();
    double used1 = tu_series(t, "moonsched_heap_inuse_bytes");
    free(t);
    free(block);
    t = render();
    double used2 = tu_series(t, "moonsched_heap_inuse_bytes");
    free(t);
    assert_true(used1 - used0 >= (double)big);
    assert_true(used1 - used2 >= (double)big);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_process_families),
        cmocka_unit_test(test_heap_gauges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
