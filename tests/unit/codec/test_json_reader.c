#include "testutil.h"

#include <cjson/cJSON.h>

#include "codec/json_reader.h"
#include "moonsched/decode.h"
#include "fixtures.h"

static void test_paths_and_messages(void **st) {
    (void)st;
    ms_error err;
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, &err);
    assert_int_equal(ms_json_fail(&r, NULL, "Required value"), MS_EINVAL);
    assert_string_equal(err.msg, "<root>: Required value");
    size_t top = ms_json_push(&r, "profiles");
    size_t item = ms_json_push_index(&r, 12);
    ms_json_push(&r, "pluginConfig");
    ms_json_fail(&r, "args", "must be %s", "an object");
    assert_string_equal(err.msg, "profiles[12].pluginConfig.args: must be an object");
    ms_json_pop(&r, item);
    assert_string_equal(r.path, "profiles");
    ms_json_pop(&r, top);
    ms_json_fail(&r, "kind", "Required value");
    assert_string_equal(err.msg, "kind: Required value");

    ms_json_reader_init(&r, &ms_json_object_wording, &err);
    r.subject = "Pod default/p";
    ms_json_fail(&r, NULL, "boom");
    assert_string_equal(err.msg, "Pod default/p: boom");
    assert_int_equal(ms_json_nomem(&r), MS_ENOMEM);
    assert_string_equal(err.msg, "Pod default/p: out of memory");
    ms_json_set_path(&r, "spec.selector");
    ms_json_fail(&r, "x", "bad");
    assert_string_equal(err.msg, "Pod default/p: spec.selector.x: bad");
}

static void test_lookup(void **st) {
    (void)st;
    cJSON *j = NULL;
    ms_error err;
    const char *text = "{\"a\": 1, \"b\": null, \"a\": 2}";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_OK);
    assert_int_equal(ms_json_get(j, "a")->valuedouble, 2);   /* the last of repeated keys */
    assert_null(ms_json_get(j, "b"));                          /* null reads as absent */
    assert_null(ms_json_get(j, "c"));
    assert_null(ms_json_get(NULL, "a"));
    assert_string_equal(ms_json_type_name(NULL), "nothing");
    assert_string_equal(ms_json_type_name(j), "object");
    static const char *const names[] = {"x", "y", NULL};
    assert_true(ms_json_name_in("y", names));
    assert_false(ms_json_name_in("z", names));
    cJSON_Delete(j);
}

static void test_types(void **st) {
    (void)st;
    cJSON *j = fx_yaml("{s: x, n: 3, l: [1], o: {}}\n");
    ms_error err;
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, &err);
    const char *s = "unchanged";
    assert_int_equal(ms_json_string(&r, "missing", NULL, &s), MS_OK);   /* absent: untouched */
    assert_string_equal(s, "unchanged");
    assert_int_equal(ms_json_string(&r, "s", ms_json_get(j, "s"), &s), MS_OK);
    assert_string_equal(s, "x");
    assert_int_equal(ms_json_string(&r, "n", ms_json_get(j, "n"), &s), MS_EINVAL);
    assert_string_equal(err.msg, "n: must be a string");
    bool b;
    assert_int_equal(ms_json_bool(&r, "l", ms_json_get(j, "l"), &b), MS_EINVAL);
    assert_string_equal(err.msg, "l: must be true or false");

    ms_json_reader_init(&r, &ms_json_object_wording, &err);
    assert_int_equal(ms_json_expect(&r, "o", ms_json_get(j, "o"), MS_JSON_OBJECT), MS_OK);
    assert_int_equal(ms_json_expect(&r, "l", ms_json_get(j, "l"), MS_JSON_OBJECT), MS_EINVAL);
    assert_string_equal(err.msg, "l: expected object, got array");
    ms_json_type_error(&r, "x", NULL, MS_JSON_STRING);
    assert_string_equal(err.msg, "x: expected string, got nothing");
    cJSON_Delete(j);
}

static void test_integers(void **st) {
    (void)st;
    cJSON *j = fx_yaml("{big: 9007199254740993, frac: 2.50, sci: 1e3, huge: 1e19, inf: .inf}\n");
    ms_error err;
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, &err);
    int64_t v = 0;
    assert_int_equal(ms_json_int(&r, "big", ms_json_get(j, "big"), INT64_MIN, INT64_MAX, &v), MS_OK);
    assert_int_equal(v, 9007199254740993LL);   /* not representable as a double */
    assert_int_equal(ms_json_int(&r, "sci", ms_json_get(j, "sci"), 0, 5000, &v), MS_OK);
    assert_int_equal(v, 1000);
    ms_json_int(&r, "frac", ms_json_get(j, "frac"), 0, 10, &v);
    assert_string_equal(err.msg, "frac: Invalid value: 2.50: must be an integer");   /* as written */
    ms_json_int(&r, "sci", ms_json_get(j, "sci"), 0, 10, &v);
    assert_string_equal(err.msg, "sci: Invalid value: 1e3: must be between 0 and 10");
    ms_json_int(&r, "huge", ms_json_get(j, "huge"), INT64_MIN, INT64_MAX, &v);
    assert_string_equal(err.msg, "huge: Invalid value: 1e19: must be between -9223372036854775808 and "
                                 "9223372036854775807");
    ms_json_int(&r, "inf", ms_json_get(j, "inf"), 0, 10, &v);
    assert_string_equal(err.msg, "inf: Invalid value: .inf: must be an integer");
    double d;
    ms_json_number(&r, "inf", ms_json_get(j, "inf"), MS_JSON_NUMBER, &d);
    assert_string_equal(err.msg, "inf: Invalid value: .inf: must be a number");

    ms_json_reader_init(&r, &ms_json_object_wording, &err);
    ms_json_int(&r, "frac", ms_json_get(j, "frac"), 0, 10, &v);
    assert_string_equal(err.msg, "frac: Invalid value: 2.50: expected an integer in [0, 10]");
    cJSON_Delete(j);
}

static void test_raw_numbers(void **st) {
    (void)st;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "n", cJSON_CreateRaw("25"));
    cJSON_AddItemToObject(o, "bad", cJSON_CreateRaw("x1"));
    ms_error err;
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, &err);
    int64_t v = 0;
    assert_int_equal(ms_json_int(&r, "n", ms_json_get(o, "n"), 0, 100, &v), MS_OK);
    assert_int_equal(v, 25);
    double d = 0;
    assert_int_equal(ms_json_number(&r, "n", ms_json_get(o, "n"), MS_JSON_NUMBER, &d), MS_OK);
    assert_true(d == 25);
    ms_json_number(&r, "bad", ms_json_get(o, "bad"), MS_JSON_NUMBER, &d);
    assert_string_equal(err.msg, "bad: Invalid value: x1: must be a number");
    cJSON_Delete(o);
}

static void collect(void *ctx, const char *msg) { snprintf(ctx, 200, "%s", msg); }

static void test_warnings(void **st) {
    (void)st;
    char got[200] = "";
    ms_json_reader r;
    ms_json_reader_init(&r, &ms_json_config_wording, NULL);
    ms_json_warn(&r, "ignored");   /* no callback: nothing */
    r.warn = collect;
    r.warn_ctx = got;
    ms_json_warn(&r, "unknown field \"%s\"", "x");
    assert_string_equal(got, "config: unknown field \"x\"");
    r.source = "s.yaml";
    ms_json_warn(&r, "w");
    assert_string_equal(got, "s.yaml: w");
    assert_int_equal(ms_json_fail(&r, NULL, "no error to fill"), MS_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_and_messages),
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_raw_numbers),
        cmocka_unit_test(test_warnings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
