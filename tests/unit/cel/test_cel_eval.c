/* CEL device selectors: parsing, CEL's evaluation rules on one device
 * (errors absorbed by && and ||, heterogeneous equality, overflow), the
 * DRA functions (quantity, semver), compile errors and the cost limit. */
#include "testutil.h"

#include <cjson/cJSON.h>

#include "api/dra.h"
#include "cel/cel.h"
#include "fixtures.h"
#include "codec/decode_dra.h"

static fx_env env;
static ms_dra_object *slice;
static ms_arena arena, scratch;

static int setup(void **state) {
    (void)state;
    fx_env_init(&env);
    static const char text[] =
        "metadata: {name: s}\n"
        "spec:\n"
        "  driver: gpu.example.com\n"
        "  nodeName: n1\n"
        "  pool: {name: n1, resourceSliceCount: 1}\n"
        "  devices:\n"
        "  - name: gpu-0\n"
        "    attributes:\n"
        "      model: {string: A100}\n"
        "      driverVersion: {version: 1.2.3-beta.2}\n"
        "      cores: {int: 6912}\n"
        "      mig: {bool: true}\n"
        "      numa.example.com/node: {int: 1}\n"
        "    capacity:\n"
        "      memory: {value: 40Gi}\n"
        "      slices: {value: 7}\n";
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err = {0};
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK) return -1;
    ms_rc rc = ms_dra_decode(&env.d, MS_DK_RESOURCE_SLICE, docs[0], &slice, &err);
    cJSON_Delete(docs[0]);
    free(docs);
    ms_arena_init(&arena, 4096);
    ms_arena_init(&scratch, 4096);
    return rc == MS_OK ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    ms_dra_unref(slice);
    ms_arena_free(&arena);
    ms_arena_free(&scratch);
    fx_env_free(&env);
    return 0;
}

/* "true", "false" or the error's text */
static const char *run(const char *expr, int64_t limit, int64_t *cost) {
    static char out[600];
    ms_cel_program p;
    ms_error err = {0};
    if (ms_cel_compile(expr, &arena, &p, &err) != MS_OK) {
        snprintf(out, sizeof out, "compile: %s", err.msg);
        return out;
    }
    ms_cel_device d = {"gpu.example.com", &slice->u.slice.devices[0], env.in};
    ms_cel_result r = ms_cel_eval(&p, &d, limit, &scratch, cost, &err);
    ms_arena_reset(&scratch);
    snprintf(out, sizeof out, "%s", r == MS_CEL_TRUE ? "true" : r == MS_CEL_FALSE ? "false" : err.msg);
    return out;
}

static void test_selectors(void **state) {
    (void)state;
    static const struct {
        const char *expr, *want;
    } cases[] = {
        /* what drivers write */
        {"device.driver == \"gpu.example.com\"", "true"},
        {"device.driver == 'other.example.com'", "false"},
        {"device.attributes[\"gpu.example.com\"].model == \"A100\"", "true"},
        {"device.attributes['gpu.example.com'].cores >= 4096 && device.attributes['gpu.example.com'].mig", "true"},
        {"device.attributes[\"numa.example.com\"].node == 1", "true"},
        {"device.attributes[\"numa.example.com\"][\"node\"] in [0, 1]", "true"},
        {"device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0", "true"},
        {"device.capacity[\"gpu.example.com\"].memory.isGreaterThan(quantity(\"32Gi\"))", "true"},
        {"device.capacity[\"gpu.example.com\"].memory.isLessThan(quantity(\"40Gi\"))", "false"},
        {"device.capacity[\"gpu.example.com\"].slices.asInteger() == 7", "true"},
        {"device.attributes[\"gpu.example.com\"].driverVersion.isGreaterThan(semver(\"1.2.3-beta.1\"))", "true"},
        {"device.attributes[\"gpu.example.com\"].driverVersion.isLessThan(semver(\"1.2.3\"))", "true"},
        {"device.attributes[\"gpu.example.com\"].driverVersion.major() == 1", "true"},
        {"device.attributes[\"gpu.example.com\"].model.startsWith('A1') && 'a100' == "
         "device.attributes[\"gpu.example.com\"].model.lowerAscii()", "true"},
        {"has(device.attributes[\"gpu.example.com\"].model)", "true"},
        {"has(device.attributes[\"gpu.example.com\"].serial)", "false"},
        {"\"gpu.example.com\" in device.attributes && !(\"x.example.com\" in device.attributes)", "true"},
        {"\"model\" in device.attributes[\"gpu.example.com\"]", "true"},
        /* CEL's rules */
        {"device.attributes[\"gpu.example.com\"].serial == 'x'", "no such key: serial"},
        {"false && device.attributes[\"gpu.example.com\"].serial == 'x'", "false"},
        {"device.attributes[\"gpu.example.com\"].serial == 'x' || true", "true"},
        {"device.attributes[\"gpu.example.com\"].serial == 'x' || false", "no such key: serial"},
        {"1 == 1u && 1.0 == 1 && 2u > 1 && -1 < 1u", "true"},
        {"1 == 'a'", "false"},
        {"1 < 'a'", "no such overload"},
        {"1 + 1u == 2", "no such overload"},
        {"9223372036854775807 + 1 > 0", "integer overflow"},
        {"-9223372036854775808 - 1 < 0", "integer overflow"},
        {"0u - 1u == 0u", "unsigned integer overflow"},
        {"1 / 0 == 0", "division by zero"},
        {"1 % 0 == 0", "modulus by zero"},
        {"7 / 2 == 3 && 7 % 3 == 1 && -7 / 2 == -3 && 2 * 3 + 1 == 7", "true"},
        {"true ? 1 == 1 : 1 / 0 == 0", "true"},
        {"size('héllo') == 5 && size([1, 2]) == 2 && 'ab'.size() == 2", "true"},
        {"[1, 2] + [3] == [1, 2, 3]", "true"},
        {"[1, 2][2] == 3", "index out of range: 2"},
        {"'a' + 'b' == 'ab' && 'abc'.contains('bc') && 'abc'.endsWith('c')", "true"},
        {"int('42') == 42 && string(42) == '42' && double(1) == 1.0 && uint(3) == 3u", "true"},
        {"isQuantity('1Gi') && !isQuantity('1gi') && isSemver('1.0.0') && !isSemver('1.0')", "true"},
        {"quantity('1x') == quantity('1')", "quantities must match the regular expression "
                                            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
        {"device.attributes['d'].model.lowerAscii() == 'x' ? device.driver : device.driver",
         "compile: must evaluate to bool or the unknown type, not string"},
        {"!1", "no such overload"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t cost;
        const char *got = run(cases[i].expr, MS_CEL_MAX_COST, &cost);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].expr, got, cases[i].want);
    }
}

static void test_compile_errors(void **state) {
    (void)state;
    static const struct {
        const char *expr, *want;
    } cases[] = {
        {"dev.driver == 'x'", "compile: <input>:1:1: undeclared reference to 'dev' (in container '')"},
        {"device.driver == 'x' &&", "compile: <input>:1:24: Syntax error: mismatched input '<EOF>'"},
        {"device.driver.matchesRegex('x')",
         "compile: <input>:1:14: undeclared reference to 'matchesRegex' (in container '')"},
        {"device.driver == 'x", "compile: <input>:1:18: Syntax error: unterminated string"},
        {"has(device)", "compile: <input>:1:1: invalid argument to has() macro"},
        {"device.driver", "compile: must evaluate to bool or the unknown type, not string"},
        {"size(device.driver) + 1", "compile: must evaluate to bool or the unknown type, not int"},
        {"1u", "compile: must evaluate to bool or the unknown type, not uint"},
        {"1 == 1 1", "compile: <input>:1:8: Syntax error: extraneous input '1' expecting <EOF>"},
        {"device.driver\n  == #", "compile: <input>:2:6: Syntax error: token recognition error at: '#'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t cost;
        const char *got = run(cases[i].expr, MS_CEL_MAX_COST, &cost);
        if (strcmp(got, cases[i].want) != 0) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].expr, got, cases[i].want);
    }
    char *big = malloc(MS_CEL_MAX_LENGTH + 2);
    memset(big, ' ', MS_CEL_MAX_LENGTH + 1);
    big[MS_CEL_MAX_LENGTH + 1] = '\0';
    big[0] = '1';
    assert_string_equal(run(big, MS_CEL_MAX_COST, NULL), "compile: must not be longer than 10240 bytes");
    free(big);
}

/* The cost counts the work done, and an expression over its limit stops
 * with upstream's words, whatever it would have returned. */
static void test_cost(void **state) {
    (void)state;
    int64_t small, larger;
    assert_string_equal(run("true", MS_CEL_MAX_COST, &small), "true");
    assert_string_equal(run("[1, 2, 3] == [1, 2, 3] && true", MS_CEL_MAX_COST, &larger), "true");
    assert_true(small >= 1 && larger > small);
    assert_string_equal(run("[1, 2, 3] == [1, 2, 3] && true", larger - 1, NULL),
                        "operation cancelled: actual cost limit exceeded");
    assert_string_equal(run("[1, 2, 3] == [1, 2, 3] && true", larger, NULL), "true");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_compile_errors),
        cmocka_unit_test(test_cost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
