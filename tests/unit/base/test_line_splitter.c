#include "testutil.h"

#include "base/line_splitter.h"

typedef struct got {
    char lines[16][64];
    int n;
    int stop_after;   /* 0: never */
} got;

static int collect(void *ctx, char *line, size_t len) {
    got *g = ctx;
    assert_int_equal(strlen(line), len);
    assert_true(g->n < 16);
    snprintf(g->lines[g->n++], sizeof g->lines[0], "%s", line);
    return g->stop_after && g->n == g->stop_after ? 7 : 0;
}

/* Every way of cutting the same stream into chunks delivers the same lines. */
static void test_any_chunking(void **state) {
    (void)state;
    const char *stream = "{\"type\":\"ADDED\"}\n{\"type\":\"MODIFIED\"}\r\n\n{\"type\":\"DELETED\"}\n{\"partial";
    size_t len = strlen(stream);
    for (size_t a = 0; a <= len; a++) {
        for (size_t b = a; b <= len; b += 3) {
            ms_line_splitter s;
            ms_line_splitter_init(&s, 0);
            got g = {0};
            assert_int_equal(ms_line_splitter_feed(&s, stream, a, collect, &g), 0);
            assert_int_equal(ms_line_splitter_feed(&s, stream + a, b - a, collect, &g), 0);
            assert_int_equal(ms_line_splitter_feed(&s, stream + b, len - b, collect, &g), 0);
            assert_int_equal(g.n, 3);
            assert_string_equal(g.lines[0], "{\"type\":\"ADDED\"}");
            assert_string_equal(g.lines[1], "{\"type\":\"MODIFIED\"}");   /* \r dropped */
            assert_string_equal(g.lines[2], "{\"type\":\"DELETED\"}");
            assert_int_equal(ms_line_splitter_pending(&s), strlen("{\"partial"));
            ms_line_splitter_free(&s);
        }
    }
}

static void test_byte_by_byte_and_reset(void **state) {
    (void)state;
    ms_line_splitter s;
    ms_line_splitter_init(&s, 0);
    got g = {0};
    const char *text = "ab\ncd\n";
    for (size_t i = 0; text[i]; i++) assert_int_equal(ms_line_splitter_feed(&s, text + i, 1, collect, &g), 0);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.lines[1], "cd");
    assert_int_equal(ms_line_splitter_feed(&s, "left", 4, collect, &g), 0);
    ms_line_splitter_reset(&s);
    assert_int_equal(ms_line_splitter_pending(&s), 0);
    assert_int_equal(ms_line_splitter_feed(&s, "over\n", 5, collect, &g), 0);
    assert_string_equal(g.lines[2], "over");   /* "left" was dropped by the reset */
    ms_line_splitter_free(&s);
}

static void test_stop_and_limit(void **state) {
    (void)state;
    ms_line_splitter s;
    ms_line_splitter_init(&s, 0);
    got g = {.stop_after = 2};
    assert_int_equal(ms_line_splitter_feed(&s, "1\n2\n3\n", 6, collect, &g), 7);
    assert_int_equal(g.n, 2);
    ms_line_splitter_free(&s);

    ms_line_splitter_init(&s, 8);
    got h = {0};
    assert_int_equal(ms_line_splitter_feed(&s, "12345678\n", 9, collect, &h), 0);   /* exactly the limit */
    assert_int_equal(ms_line_splitter_feed(&s, "12345", 5, collect, &h), 0);
    assert_int_equal(ms_line_splitter_feed(&s, "6789\n", 5, collect, &h), -1);      /* 9 bytes */
    assert_int_equal(h.n, 1);
    ms_line_splitter_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_any_chunking),
        cmocka_unit_test(test_byte_by_byte_and_reset),
        cmocka_unit_test(test_stop_and_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
