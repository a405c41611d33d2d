#include "testutil.h"

#include <cjson/cJSON.h>

#include "moonsched/arena.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/selector.h"
#include "fixtures.h"

static cJSON *json(const char *text) {
    cJSON *j = cJSON_Parse(text);
    if (!j) fail_msg("bad JSON in test: %s", text);
    return j;
}

/* ---- metav1.LabelSelector ---------------------------------------------- */

typedef struct { const char *sel; const char *labels; bool match; } label_case;

static const label_case label_cases[] = {
    /* nil selects nothing, {} everything */
    {"null", "", false},
    {"null", "a=b", false},
    {"{}", "", true},
    {"{}", "a=b", true},
    {"{\"matchLabels\":{}}", "a=b", true},
    {"{\"matchLabels\":null,\"matchExpressions\":[]}", "", true},
    /* matchLabels */
    {"{\"matchLabels\":{\"a\":\"b\"}}", "a=b", true},
    {"{\"matchLabels\":{\"a\":\"b\"}}", "a=b;c=d", true},
    {"{\"matchLabels\":{\"a\":\"b\"}}", "a=c", false},
    {"{\"matchLabels\":{\"a\":\"b\"}}", "", false},
    {"{\"matchLabels\":{\"a\":\"b\",\"c\":\"d\"}}", "a=b", false},
    {"{\"matchLabels\":{\"a\":\"\"}}", "a=", true},
    {"{\"matchLabels\":{\"a\":\"\"}}", "", false},
    /* a repeated key: the last one wins, as in a Go map */
    {"{\"matchLabels\":{\"a\":\"x\",\"a\":\"y\"}}", "a=y", true},
    {"{\"matchLabels\":{\"a\":\"x\",\"a\":\"y\"}}", "a=x", false},
    /* matchExpressions */
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\",\"y\"]}]}", "a=y", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\",\"y\"]}]}", "a=z", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\",\"y\"]}]}", "", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\",\"x\",\"x\"]}]}", "a=x", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[\"x\"]}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[\"x\"]}]}", "a=y", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[\"x\"]}]}", "", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"}]}", "a=", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"}]}", "b=c", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[]}]}", "a=q", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"DoesNotExist\"}]}", "b=c", true},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"DoesNotExist\"}]}", "a=c", false},
    {"{\"matchExpressions\":[{\"key\":\"example.com/a-b\",\"operator\":\"Exists\"}]}", "example.com/a-b=1", true},
    /* matchLabels AND matchExpressions */
    {"{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"fe\"]}]}",
     "app=web;tier=fe", true},
    {"{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"fe\"]}]}",
     "app=web;tier=be", false},
    {"{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"fe\"]}]}",
     "app=db;tier=fe", false},
    /* requirements that fail to convert: the selector selects nothing */
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}", "a=", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[]}]}", "", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"DoesNotExist\",\"values\":[\"x\"]}]}", "", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}", "a=2", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"in\",\"values\":[\"x\"]}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"\",\"values\":[\"x\"]}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"values\":[\"x\"]}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"operator\":\"Exists\"}]}", "a=x", false},
    {"{\"matchExpressions\":[{\"key\":\"a b\",\"operator\":\"DoesNotExist\"}]}", "", false},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"-x\"]}]}", "a=-x", false},
    {"{\"matchLabels\":{\"a\":\"b c\"}}", "", false},
    {"{\"matchLabels\":{\"/a\":\"b\"}}", "/a=b", false},
    {"{\"matchLabels\":{\"a\":\"b\"},\"matchExpressions\":[{\"key\":\"c\",\"operator\":\"Nope\"}]}", "a=b", false},
    /* null in place of a string reads as "" */
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[null]}]}", "a=", true},
};

static void test_label_selector_json(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof label_cases / sizeof label_cases[0]; i++) {
        const label_case *c = &label_cases[i];
        cJSON *j = json(c->sel);
        ms_label_selector s;
        ms_error err = {0};
        assert_int_equal(ms_label_selector_from_json(j, f->in, &f->a, &s, "spec.selector", &err),
                         MS_OK);
        ms_labels l = fx_labels(f, c->labels);
        if (ms_label_selector_matches(&s, &l, f->in) != c->match)
            fail_msg("case %zu: %s against {%s}: want %d", i, c->sel, c->labels, c->match);
        cJSON_Delete(j);
    }
}

static void test_label_selector_nil_and_compiled_shape(void **state) {
    fx_labels_env *f = *state;
    ms_label_selector s;
    ms_error err = {0};
    assert_int_equal(ms_label_selector_from_json(NULL, f->in, &f->a, &s, "x", &err), MS_OK);
    assert_true(s.nothing);
    ms_labels none = {0, NULL};
    assert_false(ms_label_selector_matches(&s, &none, f->in));

    cJSON *j = json("{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\","
                    "\"values\":[\"c\",\"a\",\"b\",\"a\",\"c\"]}]}");
    assert_int_equal(ms_label_selector_from_json(j, f->in, &f->a, &s, "x", &err), MS_OK);
    assert_false(s.nothing);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.reqs[0].op, MS_OP_IN);
    assert_int_equal(s.reqs[0].key, ms_intern_cstr(f->in, "k"));
    assert_int_equal(s.reqs[0].nvalues, 3);   /* duplicates dropped */
    for (uint32_t i = 1; i < s.reqs[0].nvalues; i++)
        assert_true(s.reqs[0].values[i - 1] < s.reqs[0].values[i]);
    cJSON_Delete(j);
}

typedef struct { const char *sel; const char *msg; } error_case;

static const error_case label_errors[] = {
    {"[]", "spec.selector: expected object, got array"},
    {"\"a=b\"", "spec.selector: expected object, got string"},
    {"{\"matchLabels\":[]}", "spec.selector.matchLabels: expected object, got array"},
    {"{\"matchLabels\":{\"a\":1}}", "spec.selector.matchLabels.a: expected string, got number"},
    {"{\"matchExpressions\":{}}", "spec.selector.matchExpressions: expected array, got object"},
    {"{\"matchExpressions\":[1]}", "spec.selector.matchExpressions[0]: expected object, got number"},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\"},{\"key\":true}]}",
     "spec.selector.matchExpressions[1].key: expected string, got boolean"},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":7}]}",
     "spec.selector.matchExpressions[0].operator: expected string, got number"},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":\"x\"}]}",
     "spec.selector.matchExpressions[0].values: expected array, got string"},
    {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\",2]}]}",
     "spec.selector.matchExpressions[0].values[1]: expected string, got number"},
};

static void test_label_selector_json_errors(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof label_errors / sizeof label_errors[0]; i++) {
        cJSON *j = json(label_errors[i].sel);
        ms_label_selector s;
        ms_error err = {0};
        assert_int_equal(ms_label_selector_from_json(j, f->in, &f->a, &s, "spec.selector", &err),
                         MS_EINVAL);
        assert_string_equal(err.msg, label_errors[i].msg);
        assert_true(s.nothing);
        cJSON_Delete(j);
    }
}

/* ---- v1.NodeSelector ---------------------------------------------------- */

typedef struct { const char *sel; const char *labels; const char *name; bool match; } node_case;

#define TERM(x) "{\"nodeSelectorTerms\":[" x "]}"
#define EXPR(k, op, vals) "{\"key\":\"" k "\",\"operator\":\"" op "\",\"values\":[" vals "]}"

static const node_case node_cases[] = {
    /* no terms, empty terms */
    {"null", "a=b", "n1", false},
    {"{}", "a=b", "n1", false},
    {TERM(""), "a=b", "n1", false},
    {TERM("{}"), "a=b", "n1", false},
    {TERM("null"), "a=b", "n1", false},
    {TERM("{\"matchExpressions\":[],\"matchFields\":[]}"), "", "n1", false},
    {TERM("{}, {\"matchExpressions\":[" EXPR("a", "In", "\"b\"") "]}"), "a=b", "n1", true},
    /* terms are ORed */
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "\"x\"") "]},"
          "{\"matchExpressions\":[" EXPR("b", "In", "\"y\"") "]}"), "b=y", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "\"x\"") "]},"
          "{\"matchExpressions\":[" EXPR("b", "In", "\"y\"") "]}"), "a=y;b=x", "n1", false},
    /* expressions within a term are ANDed */
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "\"x\"") "," EXPR("b", "Exists", "") "]}"),
     "a=x", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "\"x\"") "," EXPR("b", "Exists", "") "]}"),
     "a=x;b=", "n1", true},
    /* NotIn and DoesNotExist match an absent key */
    {TERM("{\"matchExpressions\":[" EXPR("a", "NotIn", "\"x\"") "]}"), "", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("a", "NotIn", "\"x\",\"y\"") "]}"), "a=y", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "DoesNotExist", "") "]}"), "", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("a", "DoesNotExist", "") "]}"), "a=", "n1", false},
    /* Gt / Lt */
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=4", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=3", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=four", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=4.5", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"), "cores=+4", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"),
     "cores=9223372036854775807", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "]}"),
     "cores=9223372036854775808", "n1", false},   /* out of int64 range: not an integer */
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"007\"") "]}"), "cores=8", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"3\"") "]}"), "cores=2", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"3\"") "]}"), "cores=3", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"3\"") "]}"), "cores=-5", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"0\"") "]}"),
     "cores=-9223372036854775808", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"3\"") "]}"), "cores=-", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"3\"") "," EXPR("cores", "Lt", "\"6\"") "]}"),
     "cores=5", "n1", true},
    /* invalid Gt/Lt operands make the term match nothing: a negative number
     * is an integer but not a valid label value */
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"-1\"") "]}"), "cores=5", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"abc\"") "]}"), "cores=5", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "\"1\",\"2\"") "]}"), "cores=5", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Gt", "") "]}"), "cores=5", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("cores", "Lt", "\"1.5\"") "]}"), "cores=0", "n1", false},
    /* an invalid term matches nothing, the others still count */
    {TERM("{\"matchExpressions\":[" EXPR("a", "Bogus", "\"x\"") "]},"
          "{\"matchExpressions\":[" EXPR("b", "Exists", "") "]}"), "a=x;b=1", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "") "]},"
          "{\"matchExpressions\":[" EXPR("b", "Exists", "") "]}"), "a=;b=1", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("a", "In", "") "]},"
          "{\"matchExpressions\":[" EXPR("b", "Exists", "") "]}"), "a=", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "Exists", "\"x\"") "]}"), "a=x", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "DoesNotExist", "\"x\"") "]}"), "", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "NotIn", "") "]}"), "", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("Bad Key", "DoesNotExist", "") "]}"), "", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("a", "DoesNotExist", "") "]," "\"matchFields\":["
          EXPR("metadata.name", "Exists", "") "]}"), "", "n1", false},
    /* matchFields: metadata.name, In/NotIn with exactly one value */
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "\"n1\"") "]}"), "", "n1", true},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "\"n1\"") "]}"), "", "n2", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "NotIn", "\"n1\"") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "NotIn", "\"n1\"") "]}"), "", "n2", true},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "\"n1\",\"n2\"") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "Exists", "") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "Gt", "\"1\"") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "\"n1\"") "]},"
          "{\"matchFields\":[" EXPR("metadata.name", "In", "\"n2\"") "]}"), "", "n2", true},
    /* other field keys read as "" on a node */
    {TERM("{\"matchFields\":[" EXPR("spec.unschedulable", "In", "\"\"") "]}"), "", "n1", true},
    {TERM("{\"matchFields\":[" EXPR("spec.unschedulable", "In", "\"true\"") "]}"), "", "n1", false},
    {TERM("{\"matchFields\":[" EXPR("spec.unschedulable", "NotIn", "\"true\"") "]}"), "", "n1", true},
    /* matchFields are skipped for a node without a name */
    {TERM("{\"matchFields\":[" EXPR("metadata.name", "In", "\"n1\"") "]}"), "", "", true},
    /* matchExpressions AND matchFields */
    {TERM("{\"matchExpressions\":[" EXPR("zone", "In", "\"a\"") "],\"matchFields\":["
          EXPR("metadata.name", "In", "\"n1\"") "]}"), "zone=a", "n1", true},
    {TERM("{\"matchExpressions\":[" EXPR("zone", "In", "\"a\"") "],\"matchFields\":["
          EXPR("metadata.name", "In", "\"n1\"") "]}"), "zone=b", "n1", false},
    {TERM("{\"matchExpressions\":[" EXPR("zone", "In", "\"a\"") "],\"matchFields\":["
          EXPR("metadata.name", "In", "\"n1\"") "]}"), "zone=a", "n2", false},
};

static void test_node_selector_json(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof node_cases / sizeof node_cases[0]; i++) {
        const node_case *c = &node_cases[i];
        cJSON *j = json(c->sel);
        ms_node_selector s;
        ms_error err = {0};
        if (ms_node_selector_from_json(j, f->in, &f->a, &s, "spec", &err) != MS_OK)
            fail_msg("case %zu: %s: %s", i, c->sel, err.msg);
        ms_labels l = fx_labels(f, c->labels);
        ms_str name = ms_intern_cstr(f->in, c->name);
        if (ms_node_selector_matches(&s, &l, name, f->in) != c->match)
            fail_msg("case %zu: %s against {%s} name %s: want %d", i, c->sel, c->labels, c->name,
                     c->match);
        cJSON_Delete(j);
    }
}

static void test_node_selector_term_shape(void **state) {
    fx_labels_env *f = *state;
    cJSON *j = json("{\"matchExpressions\":[" EXPR("a", "Gt", "\"42\"") "," EXPR("b", "Nope", "")
                    "],\"matchFields\":[" EXPR("metadata.name", "In", "\"n\"") "]}");
    ms_node_selector_term t;
    ms_error err = {0};
    assert_int_equal(ms_node_selector_term_from_json(j, f->in, &f->a, &t, "preference", &err), MS_OK);
    assert_true(t.invalid);
    assert_int_equal(t.nexpr, 2);
    assert_int_equal(t.nfields, 1);
    assert_int_equal(t.expr[0].op, MS_OP_GT);
    assert_int_equal(t.expr[0].number, 42);
    ms_labels l = fx_labels(f, "a=50");
    assert_false(ms_node_selector_term_matches(&t, &l, ms_intern_cstr(f->in, "n"), f->in));
    /* the valid requirement alone still matches */
    assert_true(ms_requirement_matches(&t.expr[0], &l, f->in));
    cJSON_Delete(j);

    j = json("{}");
    assert_int_equal(ms_node_selector_term_from_json(j, f->in, &f->a, &t, "preference", &err), MS_OK);
    assert_false(t.invalid);
    assert_false(ms_node_selector_term_matches(&t, &l, ms_intern_cstr(f->in, "n"), f->in));
    cJSON_Delete(j);
}

static const error_case node_errors[] = {
    {"[]", "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
           "expected object, got array"},
    {"{\"nodeSelectorTerms\":{}}", "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                                   ".nodeSelectorTerms: expected array, got object"},
    {TERM("{}, 3"), "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                    ".nodeSelectorTerms[1]: expected object, got number"},
    {TERM("{\"matchExpressions\":[" EXPR("a", "Exists", "") ",{\"key\":\"b\",\"operator\":1}]}"),
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
     ".nodeSelectorTerms[0].matchExpressions[1].operator: expected string, got number"},
    {TERM("{\"matchFields\":\"x\"}"), "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                                      ".nodeSelectorTerms[0].matchFields: expected array, got string"},
    {TERM("{},{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":[false]}]}"),
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
     ".nodeSelectorTerms[1].matchFields[0].values[0]: expected string, got boolean"},
};

static void test_node_selector_json_errors(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof node_errors / sizeof node_errors[0]; i++) {
        cJSON *j = json(node_errors[i].sel);
        ms_node_selector s;
        ms_error err = {0};
        assert_int_equal(
            ms_node_selector_from_json(
                j, f->in, &f->a, &s,
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", &err),
            MS_EINVAL);
        assert_string_equal(err.msg, node_errors[i].msg);
        cJSON_Delete(j);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_label_selector_json, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_label_selector_nil_and_compiled_shape, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_label_selector_json_errors, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_node_selector_json, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_node_selector_term_shape, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_node_selector_json_errors, fx_labels_setup, fx_labels_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
