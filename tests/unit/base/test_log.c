#include "testutil.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <unistd.h>

#include "moonsched/log.h"

typedef struct captured {
    char lines[8][2048];
    int n;
    int levels[8];
} captured;

static void sink(void *ctx, ms_log_level level, const char *line, size_t len) {
    captured *c = ctx;
    assert_int_equal(strlen(line), len);
    if (c->n < 8) {
        snprintf(c->lines[c->n], sizeof c->lines[0], "%s", line);
        c->levels[c->n++] = level;
    }
}

/* The line without its "ts=... " prefix, which changes. */
static const char *after_ts(const char *line) {
    assert_memory_equal(line, "ts=", 3);
    const char *sp = strchr(line, ' ');
    assert_non_null(sp);
    return sp + 1;
}

static void test_logfmt_quoting(void **state) {
    (void)state;
    captured c = {0};
    ms_logger l = {.level = MS_LOG_INFO, .sink = sink, .ctx = &c};
    ms_log(&l, MS_LOG_INFO, "watch closed", "resource", "/api/v1/pods", "rv", "123", NULL);
    ms_log(&l, MS_LOG_WARN, "object skipped", "object", "default/web 1", "error",
           "Pod default/web: spec.x: \"bad\"\nnext", "empty", "", "null", NULL, NULL);
    ms_log(&l, MS_LOG_ERROR, "k=v", "a=b", "c=d", NULL);
    assert_int_equal(c.n, 3);
    assert_string_equal(after_ts(c.lines[0]), "level=info msg=\"watch closed\" resource=/api/v1/pods rv=123");
    assert_string_equal(after_ts(c.lines[1]),
                        "level=warn msg=\"object skipped\" object=\"default/web 1\" "
                        "error=\"Pod default/web: spec.x: \\\"bad\\\"\\nnext\" empty=\"\" null=\"\"");
    assert_string_equal(after_ts(c.lines[2]), "level=error msg=\"k=v\" a=b=\"c=d\"");
    assert_int_equal(c.levels[1], MS_LOG_WARN);
    /* ts is RFC 3339 UTC with milliseconds */
    assert_int_equal(strchr(c.lines[0], ' ') - c.lines[0], (long)strlen("ts=2024-01-02T03:04:05.678Z"));
    assert_int_equal(c.lines[0][strlen("ts=2024-01-02T03:04:05.678")], 'Z');
}

static void test_levels(void **state) {
    (void)state;
    captured c = {0};
    ms_logger l = {.level = MS_LOG_WARN, .sink = sink, .ctx = &c};
    ms_log(&l, MS_LOG_INFO, "dropped", NULL);
    ms_log(&l, MS_LOG_DEBUG, "dropped", NULL);
    ms_log(&l, MS_LOG_WARN, "kept", NULL);
    ms_log(&l, MS_LOG_ERROR, "kept", NULL);
    assert_int_equal(c.n, 2);
    assert_true(ms_log_enabled(&l, MS_LOG_WARN));
    assert_false(ms_log_enabled(&l, MS_LOG_INFO));
    assert_true(ms_log_enabled(NULL, MS_LOG_INFO));    /* the default: info */
    assert_false(ms_log_enabled(NULL, MS_LOG_DEBUG));
    assert_string_equal(ms_log_level_name(MS_LOG_DEBUG), "debug");
}

static void test_json(void **state) {
    (void)state;
    captured c = {0};
    ms_logger l = {.level = MS_LOG_DEBUG, .json = true, .sink = sink, .ctx = &c};
    ms_log(&l, MS_LOG_DEBUG, "a \"quoted\"\tmsg", "key", "v\x01" "al", "n", "42", NULL);
    assert_int_equal(c.n, 1);
    cJSON *j = cJSON_Parse(c.lines[0]);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "level")->valuestring, "debug");
    assert_string_equal(cJSON_GetObjectItem(j, "msg")->valuestring, "a \"quoted\"\tmsg");
    assert_string_equal(cJSON_GetObjectItem(j, "key")->valuestring, "v\x01" "al");
    assert_string_equal(cJSON_GetObjectItem(j, "n")->valuestring, "42");
    assert_non_null(cJSON_GetObjectItem(j, "ts"));
    cJSON_Delete(j);
}

static void test_fd_and_long_lines(void **state) {
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    ms_logger l = {.level = MS_LOG_INFO, .fd = p[1]};
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ms_log(&l, MS_LOG_INFO, "long", "v", big, NULL);
    close(p[1]);
    char buf[8192];
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    assert_true(n > 5000);
    buf[n] = '\0';
    assert_int_equal(buf[n - 1], '\n');
    assert_non_null(strstr(buf, " v=xxxxx"));
    assert_null(strchr(buf, '\n') + 1 < buf + n ? strchr(strchr(buf, '\n') + 1, '\n') : NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logfmt_quoting),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_fd_and_long_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
