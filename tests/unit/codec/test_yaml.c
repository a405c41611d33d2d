#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "codec/decode_internal.h"
#include "moonsched/decode.h"

typedef struct parsed {
    cJSON **docs;
    size_t n;
} parsed;

static parsed yaml_ok(const char *text) {
    parsed p = {0};
    ms_error err = {0};
    ms_rc rc = ms_yaml_parse(text, strlen(text), &p.docs, &p.n, &err);
    if (rc != MS_OK) fail_msg("ms_yaml_parse: %s", err.msg);
    return p;
}

static void parsed_free(parsed *p) {
    for (size_t i = 0; i < p->n; i++) cJSON_Delete(p->docs[i]);
    free(p->docs);
}

static const char *yaml_err(const char *text, ms_error *err) {
    cJSON **docs = NULL;
    size_t n = 7;
    ms_rc rc = ms_yaml_parse(text, strlen(text), &docs, &n, err);
    assert_int_equal(rc, MS_EINVAL);
    assert_null(docs);
    assert_int_equal(n, 0);
    return err->msg;
}

static const cJSON *get(const cJSON *o, const char *k) {
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!c) fail_msg("no key %s", k);
    return c;
}

/* Plain scalars resolve with the YAML 1.2 core schema; numbers keep their
 * exact text. */
static void test_plain_scalars(void **state) {
    (void)state;
    static const struct {
        const char *text;
        int type;               /* cJSON type */
        const char *str;        /* string value, or a number's text */
        double num;
    } cases[] = {
        {"~", cJSON_NULL, NULL, 0},
        {"null", cJSON_NULL, NULL, 0},
        {"Null", cJSON_NULL, NULL, 0},
        {"NULL", cJSON_NULL, NULL, 0},
        {"", cJSON_NULL, NULL, 0},
        {"true", cJSON_True, NULL, 0},
        {"True", cJSON_True, NULL, 0},
        {"TRUE", cJSON_True, NULL, 0},
        {"false", cJSON_False, NULL, 0},
        {"FALSE", cJSON_False, NULL, 0},
        {"yes", cJSON_String, "yes", 0},
        {"no", cJSON_String, "no", 0},
        {"on", cJSON_String, "on", 0},
        {"tRue", cJSON_String, "tRue", 0},
        {"nULL", cJSON_String, "nULL", 0},
        {"0.1", cJSON_Number, "0.1", 0.1},
        {"137438953472", cJSON_Number, "137438953472", 137438953472.0},
        {"9223372036854775807", cJSON_Number, "9223372036854775807", 9223372036854775807.0},
        {"-5", cJSON_Number, "-5", -5},
        {"+12", cJSON_Number, "+12", 12},
        {"007", cJSON_Number, "007", 7},
        {"1e3", cJSON_Number, "1e3", 1000},
        {"1.5E-2", cJSON_Number, "1.5E-2", 0.015},
        {".5", cJSON_Number, ".5", 0.5},
        {"5.", cJSON_Number, "5.", 5},
        {"0x1F", cJSON_Number, "0x1F", 31},
        {"0o17", cJSON_Number, "0o17", 15},
        {"1e", cJSON_String, "1e", 0},
        {"12Mi", cJSON_String, "12Mi", 0},
        {"100m", cJSON_String, "100m", 0},
        {"1.2.3", cJSON_String, "1.2.3", 0},
        {"0x", cJSON_String, "0x", 0},
        {"0o8", cJSON_String, "0o8", 0},
        {"-0x1", cJSON_String, "-0x1", 0},
        {".", cJSON_String, ".", 0},
        {"-x", cJSON_String, "-x", 0},
        {"1_000", cJSON_String, "1_000", 0},
        {"nginx:1.25", cJSON_String, "nginx:1.25", 0},
        {"2024-01-02T03:04:05Z", cJSON_String, "2024-01-02T03:04:05Z", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "v: %s\n", cases[i].text);
        parsed p = yaml_ok(text);
        assert_int_equal(p.n, 1);
        const cJSON *v = get(p.docs[0], "v");
        if ((v->type & 0xff) != cases[i].type) fail_msg("%s: type %d, want %d", cases[i].text, v->type & 0xff, cases[i].type);
        if (cases[i].str) assert_string_equal(v->valuestring, cases[i].str);
        if (cases[i].type == cJSON_Number) assert_true(v->valuedouble == cases[i].num);
        parsed_free(&p);
    }
    parsed p = yaml_ok("a: .inf\nb: -.Inf\nc: .NaN\n");
    assert_true(isinf(get(p.docs[0], "a")->valuedouble) && get(p.docs[0], "a")->valuedouble > 0);
    assert_true(isinf(get(p.docs[0], "b")->valuedouble) && get(p.docs[0], "b")->valuedouble < 0);
    assert_true(isnan(get(p.docs[0], "c")->valuedouble));
    parsed_free(&p);
}

/* Quoted and block scalars are strings whatever they look like; explicit
 * tags are honoured. */
static void test_quoting_and_tags(void **state) {
    (void)state;
    parsed p = yaml_ok("a: \"123\"\n"
                       "b: '0.1'\n"
                       "c: 'true'\n"
                       "d: \"\"\n"
                       "e: |\n  line1\n  line2\n"
                       "f: >\n  folded\n  text\n"
                       "g: !!str 42\n"
                       "h: !!int \"42\"\n"
                       "i: !!float '1.5'\n"
                       "j: !!bool \"true\"\n"
                       "k: !!null ''\n"
                       "l: ! 42\n"
                       "m: \"tab\\there\"\n");
    const cJSON *d = p.docs[0];
    assert_true(cJSON_IsString(get(d, "a")));
    assert_string_equal(get(d, "a")->valuestring, "123");
    assert_string_equal(get(d, "b")->valuestring, "0.1");
    assert_true(cJSON_IsString(get(d, "c")));
    assert_true(cJSON_IsString(get(d, "d")));
    assert_string_equal(get(d, "d")->valuestring, "");
    assert_string_equal(get(d, "e")->valuestring, "line1\nline2\n");
    assert_string_equal(get(d, "f")->valuestring, "folded text\n");
    assert_true(cJSON_IsString(get(d, "g")));
    assert_string_equal(get(d, "g")->valuestring, "42");
    assert_true(cJSON_IsNumber(get(d, "h")));
    assert_string_equal(get(d, "h")->valuestring, "42");
    assert_true(cJSON_IsNumber(get(d, "i")));
    assert_true(get(d, "i")->valuedouble == 1.5);
    assert_true(cJSON_IsTrue(get(d, "j")));
    assert_true(cJSON_IsNull(get(d, "k")));
    assert_true(cJSON_IsString(get(d, "l")));
    assert_string_equal(get(d, "m")->valuestring, "tab\there");
    parsed_free(&p);

    ms_error err;
    assert_string_equal(yaml_err("a: !!int abc\n", &err), "line 1, column 4: value does not match its tag");
    assert_string_equal(yaml_err("a: 1\nb: !!bool yes\n", &err),
                        "line 2, column 4: value does not match its tag");
}

static void test_nested_and_flow(void **state) {
    (void)state;
    parsed p = yaml_ok("metadata:\n"
                       "  name: web-1\n"
                       "  labels: {app: web, tier: \"1\"}\n"
                       "spec:\n"
                       "  containers:\n"
                       "  - name: c\n"
                       "    resources:\n"
                       "      requests: {cpu: 0.1, memory: 137438953472}\n"
                       "  - name: d\n"
                       "    args: [a, 2, null, [x]]\n"
                       "  empty: []\n"
                       "  emptymap: {}\n");
    assert_int_equal(p.n, 1);
    const cJSON *d = p.docs[0];
    assert_string_equal(get(get(d, "metadata"), "name")->valuestring, "web-1");
    const cJSON *labels = get(get(d, "metadata"), "labels");
    assert_string_equal(get(labels, "tier")->valuestring, "1");
    const cJSON *cs = get(get(d, "spec"), "containers");
    assert_int_equal(cJSON_GetArraySize(cs), 2);
    const cJSON *req = get(get(cJSON_GetArrayItem(cs, 0), "resources"), "requests");
    assert_string_equal(get(req, "cpu")->valuestring, "0.1");
    assert_string_equal(get(req, "memory")->valuestring, "137438953472");
    const cJSON *args = get(cJSON_GetArrayItem(cs, 1), "args");
    assert_int_equal(cJSON_GetArraySize(args), 4);
    assert_string_equal(cJSON_GetArrayItem(args, 0)->valuestring, "a");
    assert_true(cJSON_IsNumber(cJSON_GetArrayItem(args, 1)));
    assert_true(cJSON_IsNull(cJSON_GetArrayItem(args, 2)));
    assert_true(cJSON_IsArray(cJSON_GetArrayItem(args, 3)));
    assert_int_equal(cJSON_GetArraySize(get(get(d, "spec"), "empty")), 0);
    assert_true(cJSON_IsObject(get(get(d, "spec"), "emptymap")));
    /* Key order is kept. */
    assert_string_equal(d->child->string, "metadata");
    assert_string_equal(d->child->next->string, "spec");
    /* Printing gives plain JSON (numbers printed from their value). */
    char *s = cJSON_PrintUnformatted(req);
    assert_string_equal(s, "{\"cpu\":0.1,\"memory\":137438953472}");
    cJSON_free(s);
    parsed_free(&p);

    /* Keys are text, whatever they look like. */
    p = yaml_ok("1: a\ntrue: b\n~: c\n\"q\": d\n");
    assert_string_equal(get(p.docs[0], "1")->valuestring, "a");
    assert_string_equal(get(p.docs[0], "true")->valuestring, "b");
    assert_string_equal(get(p.docs[0], "~")->valuestring, "c");
    assert_string_equal(get(p.docs[0], "q")->valuestring, "d");
    parsed_free(&p);
}

static void test_multi_document(void **state) {
    (void)state;
    parsed p = yaml_ok("# leading comment\n"
                       "a: 1\n"
                       "---\n"
                       "---\n"
                       "# only a comment\n"
                       "---\n"
                       "- x\n"
                       "--- plain\n"
                       "...\n");
    assert_int_equal(p.n, 5);
    assert_true(cJSON_IsObject(p.docs[0]));
    assert_true(cJSON_IsNull(p.docs[1]));
    assert_true(cJSON_IsNull(p.docs[2]));
    assert_true(cJSON_IsArray(p.docs[3]));
    assert_string_equal(p.docs[4]->valuestring, "plain");
    parsed_free(&p);

    p = yaml_ok("");
    assert_int_equal(p.n, 0);
    parsed_free(&p);
    p = yaml_ok("# nothing\n\n");
    assert_int_equal(p.n, 0);
    parsed_free(&p);
}

static void test_anchors_aliases(void **state) {
    (void)state;
    parsed p = yaml_ok("base: &res\n"
                       "  cpu: 0.5\n"
                       "  memory: 1Gi\n"
                       "name: &n web\n"
                       "a: *res\n"
                       "b: *n\n"
                       "list: &l [1, *n]\n"
                       "c: *l\n"
                       "res2: &res {cpu: 2}\n"
                       "d: *res\n");
    const cJSON *d = p.docs[0];
    const cJSON *a = get(d, "a");
    assert_string_equal(get(a, "cpu")->valuestring, "0.5");
    assert_string_equal(get(a, "memory")->valuestring, "1Gi");
    assert_ptr_not_equal(a, get(d, "base"));
    assert_string_equal(get(d, "b")->valuestring, "web");
    const cJSON *c = get(d, "c");
    assert_int_equal(cJSON_GetArraySize(c), 2);
    assert_string_equal(cJSON_GetArrayItem(c, 1)->valuestring, "web");
    /* A redefined anchor: aliases after it see the new node. */
    assert_string_equal(get(get(d, "d"), "cpu")->valuestring, "2");
    parsed_free(&p);

    ms_error err;
    assert_string_equal(yaml_err("a: *nope\n", &err), "line 1, column 4: unknown anchor \"nope\"");
    /* Anchors do not cross documents. */
    assert_string_equal(yaml_err("a: &x 1\n---\nb: *x\n", &err), "line 3, column 4: unknown anchor \"x\"");
    /* An alias inside its own anchor is unknown there: no cycles. */
    assert_string_equal(yaml_err("a: &x [*x]\n", &err), "line 1, column 8: unknown anchor \"x\"");
    assert_string_equal(yaml_err("*x : 1\n", &err), "line 1, column 1: aliases as mapping keys are not supported");

    /* Exponential expansion stops at the budget instead of eating memory. */
    char bomb[2048];
    int n = snprintf(bomb, sizeof bomb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 12; i++)
        n += snprintf(bomb + n, sizeof bomb - (size_t)n,
                      "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i,
                      i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    const char *msg = yaml_err(bomb, &err);
    assert_non_null(strstr(msg, "aliases expand to too many nodes"));
}

static void test_errors(void **state) {
    (void)state;
    ms_error err;
    static const struct { const char *text, *msg; } cases[] = {
        {"a: b: c\n", "line 1, column 5: mapping values are not allowed in this context"},
        {"a: 1\na: 2\n", "yaml: unmarshal errors:\n  line 2: key \"a\" already set in map"},
        {"\"q\\\"\\n\": 1\n\"q\\\"\\n\": 2\n", "yaml: unmarshal errors:\n  line 2: key \"q\\\"\\n\" already set in map"},
        {"a:\n  b: 1\n c: 2\n",
         "line 3, column 2: did not find expected key (while parsing a block mapping at line 1)"},
        {"a: [1, 2\n", "line 2, column 1: did not find expected ',' or ']' (while parsing a flow sequence at line 1)"},
        {"a: \"open\n", "line 2, column 1: found unexpected end of stream (while scanning a quoted scalar at line 1)"},
        {"? [a]\n: 1\n", "line 1, column 3: complex mapping keys are not supported"},
        {"a: \t- x\n", NULL},
        {"x: \xff\n", "byte 3: invalid leading UTF-8 octet"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *msg = yaml_err(cases[i].text, &err);
        if (cases[i].msg && strcmp(msg, cases[i].msg) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, msg, cases[i].msg);
        assert_int_equal(err.rc, MS_EINVAL);
    }
    /* Nesting deeper than the limit is refused (cJSON recurses). */
    size_t depth = 2000;
    char *deep = malloc(depth * 2 + 1);
    for (size_t i = 0; i < depth; i++) deep[i] = '[';
    for (size_t i = 0; i < depth; i++) deep[depth + i] = ']';
    deep[2 * depth] = '\0';
    assert_non_null(strstr(yaml_err(deep, &err), "nesting too deep"));
    free(deep);
}

/* JSON: one value, a stream of values, errors at a line and column. */
static void test_json(void **state) {
    (void)state;
    cJSON *j = NULL;
    ms_error err;
    const char *text = "{\"a\": [1, 2], \"b\": \"x\"}  \n";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_OK);
    assert_int_equal(cJSON_GetArraySize(get(j, "a")), 2);
    cJSON_Delete(j);

    /* The length bounds the input: no terminator needed. */
    char buf[8] = {'[', '1', ']', 'x', 'x', 'x', 'x', 'x'};
    assert_int_equal(ms_json_parse(buf, 3, &j, &err), MS_OK);
    cJSON_Delete(j);

    text = "{\n  \"a\": 1,\n  \"b\": tru\n}";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_EINVAL);
    assert_null(j);
    assert_string_equal(err.msg, "line 3, column 8: invalid JSON near `tru`");
    text = "{\"a\": 1} {\"b\": 2}";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_EINVAL);
    assert_string_equal(err.msg, "line 1, column 10: unexpected text after the JSON value near `{\"b\": 2}`");
    assert_int_equal(ms_json_parse("  ", 2, &j, &err), MS_EINVAL);
    assert_string_equal(err.msg, "empty input: expected a JSON value");
    text = "{\"a\": [1, 2";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_EINVAL);
    assert_string_equal(err.msg, "line 1, column 11: invalid JSON near `2`");

    cJSON **docs;
    size_t n;
    text = "{\"a\": 1}\n{\"b\": 2}[3]\n";
    assert_int_equal(ms_json_parse_stream(text, strlen(text), &docs, &n, &err), MS_OK);
    assert_int_equal(n, 3);
    assert_true(cJSON_IsArray(docs[2]));
    for (size_t i = 0; i < n; i++) cJSON_Delete(docs[i]);
    free(docs);
    text = "{\"a\": 1}\n{\"b\" 2}";
    assert_int_equal(ms_json_parse_stream(text, strlen(text), &docs, &n, &err), MS_EINVAL);
    assert_null(docs);
    assert_string_equal(err.msg, "line 2, column 6: invalid JSON near `2}`");
}

/* Numbers read as quantities and integers: exact for YAML texts, shortest
 * round trip for JSON numbers. */
static void test_numbers_as_values(void **state) {
    (void)state;
    parsed p = yaml_ok("cpu: 0.1\nmem: 137438953472\nbig: 9007199254740993\nneg: -3\nhex: 0x10\n"
                       "frac: 1.5\nstr: \"250m\"\nbad: 1x\n");
    const cJSON *d = p.docs[0];
    int64_t v, m;
    ms_error err;
    assert_int_equal(ms_json_quantity(get(d, "cpu"), &v, &m, "cpu", &err), MS_OK);
    assert_int_equal(m, 100);
    assert_int_equal(v, 1);
    assert_int_equal(ms_json_quantity(get(d, "mem"), &v, NULL, "mem", &err), MS_OK);
    assert_int_equal(v, 137438953472LL);
    assert_int_equal(ms_json_quantity(get(d, "str"), NULL, &m, "str", &err), MS_OK);
    assert_int_equal(m, 250);
    assert_int_equal(ms_json_quantity(get(d, "bad"), &v, &m, "spec.x", &err), MS_EINVAL);
    assert_string_equal(err.msg, "spec.x: \"1x\": quantities must match the regular expression "
                                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert_int_equal(ms_json_quantity(get(d, "hex"), &v, &m, "h", &err), MS_EINVAL);
    assert_true(ms_json_integer(get(d, "big"), INT64_MIN, INT64_MAX, &v));
    assert_int_equal(v, 9007199254740993LL);   /* not representable as a double */
    assert_true(ms_json_integer(get(d, "neg"), -10, 10, &v));
    assert_int_equal(v, -3);
    assert_true(ms_json_integer(get(d, "hex"), 0, 100, &v));
    assert_int_equal(v, 16);
    assert_false(ms_json_integer(get(d, "frac"), INT64_MIN, INT64_MAX, &v));
    assert_false(ms_json_integer(get(d, "neg"), 0, 10, &v));
    assert_false(ms_json_integer(get(d, "str"), INT64_MIN, INT64_MAX, &v));
    parsed_free(&p);

    cJSON *j;
    const char *text = "{\"cpu\": 0.1, \"m\": 1e3, \"t\": true, \"i\": 3.0}";
    assert_int_equal(ms_json_parse(text, strlen(text), &j, &err), MS_OK);
    assert_int_equal(ms_json_quantity(get(j, "cpu"), NULL, &m, "cpu", &err), MS_OK);
    assert_int_equal(m, 100);
    assert_int_equal(ms_json_quantity(get(j, "m"), &v, NULL, "m", &err), MS_OK);
    assert_int_equal(v, 1000);
    assert_int_equal(ms_json_quantity(get(j, "t"), &v, NULL, "spec.t", &err), MS_EINVAL);
    assert_string_equal(err.msg, "spec.t: expected a quantity (string or number), got boolean");
    assert_true(ms_json_integer(get(j, "i"), 0, 5, &v));
    assert_int_equal(v, 3);
    cJSON_Delete(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_scalars),
        cmocka_unit_test(test_quoting_and_tags),
        cmocka_unit_test(test_nested_and_flow),
        cmocka_unit_test(test_multi_document),
        cmocka_unit_test(test_anchors_aliases),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_numbers_as_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
