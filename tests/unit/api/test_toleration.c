/* Tolerations against taints: upstream's TestTolerationToleratesTaint
 * with its edge cases, and the first untolerated taint among a node's. */
#include "testutil.h"

#include "taint_fixtures.h"

static void test_toleration_tolerates_taint(void **state) {
    (void)state;
    static const struct {
        const char *name;
        tol_spec tol;
        taint_spec taint;
        bool want;
    } cases[] = {
        {"same key and effect, Exists, taint without value",
         {"foo", "Exists", NULL, "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"same key and effect, Exists, taint with a value",
         {"foo", "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty key with Exists matches every key",
         {"", "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"same key, value and effect, Equal",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"different values, Equal",
         {"foo", "Equal", "value1", "NoSchedule"}, {"foo", "value2", "NoSchedule"}, false},
        {"different effects",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", "bar", "NoExecute"}, false},
        {"empty operator means Equal",
         {"foo", NULL, "bar", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty effect matches every effect",
         {"foo", "Equal", "bar", NULL}, {"foo", "bar", "PreferNoSchedule"}, true},
        {"empty key, Exists, empty effect tolerates everything",
         {NULL, "Exists", NULL, NULL}, {"anything", "x", "NoExecute"}, true},
        {"empty key with Exists still checks the effect",
         {NULL, "Exists", NULL, "NoSchedule"}, {"foo", "bar", "NoExecute"}, false},
        {"different keys",
         {"foo", "Exists", NULL, NULL}, {"bar", NULL, "NoSchedule"}, false},
        {"Equal with no value matches a taint with no value",
         {"foo", "Equal", NULL, "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"Equal with an empty value matches a taint with no value",
         {"foo", "Equal", "", "NoSchedule"}, {"foo", NULL, "NoSchedule"}, true},
        {"Equal with a value does not match a taint with no value",
         {"foo", "Equal", "bar", "NoSchedule"}, {"foo", NULL, "NoSchedule"}, false},
        {"Exists ignores the toleration's value",
         {"foo", "Exists", "other", "NoSchedule"}, {"foo", "bar", "NoSchedule"}, true},
        {"empty key with Equal compares values only",
         {NULL, "Equal", "bar", NULL}, {"foo", "bar", "NoSchedule"}, true},
    };
    ms_arena a;
    ms_arena_init(&a, 1024);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_toleration t = make_tol(&cases[i].tol);
        ms_taint taint = make_taint(&a, &cases[i].taint);
        if (ms_toleration_tolerates_taint(&t, &taint) != cases[i].want)
            fail_msg("%s: want %d", cases[i].name, cases[i].want);
        assert_int_equal(ms_tolerations_tolerate_taint(&t, 1, &taint), cases[i].want);
    }
    ms_arena_free(&a);
}

static void test_find_untolerated_taint(void **state) {
    (void)state;
    ms_arena a;
    ms_arena_init(&a, 1024);
    taint_spec specs[] = {
        {"soft", "x", "PreferNoSchedule"},
        {"ok", "y", "NoSchedule"},
        {"evict", NULL, "NoExecute"},
        {"hard", "z", "NoSchedule"},
    };
    ms_taint taints[4];
    for (int i = 0; i < 4; i++) taints[i] = make_taint(&a, &specs[i]);
    ms_toleration tols[] = {make_tol(&(tol_spec){"ok", "Exists", NULL, NULL})};
    /* PreferNoSchedule is not considered; the first untolerated one is returned. */
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, tols, 1, MS_DO_NOT_SCHEDULE_EFFECTS), &taints[2]);
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, tols, 1,
                                               MS_EFFECT_BIT(MS_EFFECT_NO_SCHEDULE)), &taints[3]);
    assert_ptr_equal(ms_find_untolerated_taint(taints, 4, NULL, 0,
                                               MS_EFFECT_BIT(MS_EFFECT_PREFER_NO_SCHEDULE)), &taints[0]);
    ms_toleration all = make_tol(&(tol_spec){NULL, "Exists", NULL, NULL});
    assert_null(ms_find_untolerated_taint(taints, 4, &all, 1, MS_DO_NOT_SCHEDULE_EFFECTS));
    assert_null(ms_find_untolerated_taint(NULL, 0, NULL, 0, MS_DO_NOT_SCHEDULE_EFFECTS));
    ms_arena_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toleration_tolerates_taint),
        cmocka_unit_test(test_find_untolerated_taint),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
