/* The registry renders its collectors' text whole, in the order they
 * registered. */
#include "testutil.h"

#include "base/metrics_registry.h"

static void put_text(void *ctx, ms_buf *b) { ms_buf_puts(b, ctx); }

static void test_order(void **state) {
    (void)state;
    ms_metrics_registry *r = ms_metrics_registry_new();
    assert_non_null(r);
    size_t len = 7;
    char *t = ms_metrics_registry_render(r, &len);
    assert_string_equal(t, "");   /* nothing registered: an empty exposition */
    assert_int_equal(len, 0);
    free(t);
    assert_true(ms_metrics_registry_add(r, put_text, "# TYPE b counter\nb 1\n"));
    assert_true(ms_metrics_registry_add(r, put_text, "# TYPE a gauge\na 2\n"));
    assert_true(ms_metrics_registry_add(r, put_text, ""));
    t = ms_metrics_registry_render(r, &len);
    assert_string_equal(t, "# TYPE b counter\nb 1\n# TYPE a gauge\na 2\n");
    assert_int_equal(len, strlen(t));
    free(t);
    ms_metrics_registry_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
