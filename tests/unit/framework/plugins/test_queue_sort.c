/* PrioritySort: higher priority first, then the earlier timestamp
 * (upstream's TestLess). */
#include "testutil.h"

#include "backend/queue.h"
#include "moonsched/plugin.h"

static void test_priority_sort(void **state) {
    (void)state;
    static const struct {
        const char *name;
        int32_t p1, p2;
        double t1, t2;
        bool want;
    } cases[] = {
        {"p1.priority less than p2.priority", 100, 1000, 0, 0, false},
        {"p1.priority greater than p2.priority", 1000, 100, 0, 0, true},
        {"equal priority, p1 added earlier", 1000, 1000, 1, 2, true},
        {"equal priority, p2 added earlier", 1000, 1000, 2, 1, false},
        {"equal priority and time", 5, 5, 1, 1, false},
        {"negative priorities", -10, -5, 0, 0, false},
    };
    const ms_plugin_ops *ops = ms_plugin_lookup("PrioritySort");
    assert_non_null(ops);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_pod a = {0}, b = {0};
        a.priority = cases[i].p1;
        b.priority = cases[i].p2;
        ms_queued_pod q1 = {.pod = &a, .timestamp = cases[i].t1}, q2 = {.pod = &b, .timestamp = cases[i].t2};
        if (ops->less(NULL, &q1, &q2) != cases[i].want) fail_msg("%s", cases[i].name);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_priority_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
