#include "testutil.h"

#include "base/suggest.h"

static void test_edit_distance(void **state) {
    (void)state;
    assert_int_equal(ms_edit_distance("", "", 3), 0);
    assert_int_equal(ms_edit_distance("abc", "abc", 3), 0);
    assert_int_equal(ms_edit_distance("profile", "profiles", 3), 1);       /* insertion */
    assert_int_equal(ms_edit_distance("containerz", "containers", 3), 1);  /* substitution */
    assert_int_equal(ms_edit_distance("nodeSelectr", "nodeSelector", 3), 1);
    assert_int_equal(ms_edit_distance("LowNodeUtilizatoin", "LowNodeUtilization", 3), 1);   /* a swap is one */
    assert_int_equal(ms_edit_distance("kitten", "sitting", 5), 3);
    assert_int_equal(ms_edit_distance("abc", "", 5), 3);
    /* counting stops past max */
    assert_int_equal(ms_edit_distance("kitten", "sitting", 2), 3);
    assert_int_equal(ms_edit_distance("a", "abcdef", 2), 3);
    /* case counts, as field names are matched exactly */
    assert_int_equal(ms_edit_distance("urlprefix", "urlPrefix", 3), 1);
}

static void test_suggest(void **state) {
    (void)state;
    static const char *const fields[] = {"containers", "initContainers", "nodeSelector", NULL, "nodeName", "volumes"};
    size_t n = sizeof fields / sizeof fields[0];
    assert_string_equal(ms_suggest("containerz", fields, n), "containers");
    assert_string_equal(ms_suggest("nodeSelectr", fields, n), "nodeSelector");
    assert_string_equal(ms_suggest("nodename", fields, n), "nodeName");
    assert_string_equal(ms_suggest("volume", fields, n), "volumes");
    assert_null(ms_suggest("tolerations", fields, n));   /* nothing near */
    assert_null(ms_suggest("containers", fields, n));    /* not itself */
    /* short words allow one edit only */
    static const char *const cmds[] = {"run", "config", "policy"};
    assert_string_equal(ms_suggest("rnu", cmds, 3), "run");
    assert_null(ms_suggest("xyz", cmds, 3));
    assert_string_equal(ms_suggest("confgi", cmds, 3), "config");
    /* the nearest wins over the first */
    static const char *const flags[] = {"--seeds", "--seed"};
    assert_string_equal(ms_suggest("--sed", flags, 2), "--seed");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_suggest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
