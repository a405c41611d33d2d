/* Errors as values: ms_error_set returns the code it records, a prefix
 * names the file or object in front of the message and survives
 * truncation, every code has a text. */
#include "testutil.h"

#include "moonsched/error.h"

static void test_set_returns_the_code(void **state) {
    (void)state;
    ms_error err = {0};
    assert_int_equal(ms_error_set(&err, MS_EINVAL, "pod %s: %d", "web", 7), MS_EINVAL);
    assert_int_equal(err.rc, MS_EINVAL);
    assert_string_equal(err.msg, "pod web: 7");
    /* A caller that does not want the text passes NULL. */
    assert_int_equal(ms_error_set(NULL, MS_ENOENT, "gone"), MS_ENOENT);
}

static void test_prefix(void **state) {
    (void)state;
    ms_error err = {0};
    ms_error_set(&err, MS_EINVAL, "spec.containers[0]: bad");
    ms_error_prefix(&err, "%s", "cluster.yaml");
    ms_error_prefix(&err, "document %d", 2);
    assert_string_equal(err.msg, "document 2: cluster.yaml: spec.containers[0]: bad");
    assert_int_equal(err.rc, MS_EINVAL);
    ms_error_prefix(NULL, "ignored");
}

/* A message that fills the buffer loses its tail, never the prefix. */
static void test_prefix_survives_truncation(void **state) {
    (void)state;
    ms_error err = {0};
    char long_msg[sizeof err.msg];
    memset(long_msg, 'x', sizeof long_msg - 1);
    long_msg[sizeof long_msg - 1] = '\0';
    ms_error_set(&err, MS_EIO, "%s", long_msg);
    ms_error_prefix(&err, "file.yaml");
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_memory_equal(err.msg, "file.yaml: xxx", 14);
    assert_int_equal(err.msg[sizeof err.msg - 2], 'x');
}

static void test_rc_str(void **state) {
    (void)state;
    assert_string_equal(ms_rc_str(MS_OK), "ok");
    assert_string_equal(ms_rc_str(MS_EINVAL), "invalid input");
    assert_string_equal(ms_rc_str(MS_ENOMEM), "out of memory");
    assert_string_equal(ms_rc_str(MS_ENOENT), "not found");
    assert_string_equal(ms_rc_str(MS_EEXIST), "already exists");
    assert_string_equal(ms_rc_str(MS_EIO), "i/o error");
    assert_string_equal(ms_rc_str(MS_ESTATE), "invalid state");
    assert_string_equal(ms_rc_str((ms_rc)-99), "unknown error");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_returns_the_code),
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_prefix_survives_truncation),
        cmocka_unit_test(test_rc_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
