#include "testutil.h"

#include "fixtures.h"
#include "moonsched/arena.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/selector.h"

typedef struct { const char *sel; const char *labels; bool match; } label_case;
typedef struct { const char *sel; const char *msg; } error_case;

/* ---- labels.Parse -------------------------------------------------------- */

static const label_case parse_cases[] = {
    {"", "x=y", true},
    {"", "", true},
    {"x=y", "x=y", true},
    {"x==y", "x=y", true},
    {"x=y,z=w", "x=y;z=w", true},
    {"x!=y,z!=w", "x=z;z=a", true},
    {"notin=in", "notin=in", true},
    {"x", "x=z", true},
    {"!x", "y=z", true},
    {"x>1", "x=2", true},
    {"x<1", "x=0", true},
    {"x<1", "x=-3", true},
    {"x=z", "", false},
    {"x=y", "x=z", false},
    {"x=y,z=w", "x=w;z=w", false},
    {"x!=y,z!=w", "x=z;z=w", false},
    {"x!=y", "", true},
    {"x", "y=z", false},
    {"!x", "x=z", false},
    {"x>1", "x=0", false},
    {"x<1", "x=2", false},
    {"x>1", "x=abc", false},
    {"x>1", "", false},
    {"foo=bar,baz=blah", "foo=bar;baz=blah", true},
    {"foo=bar,foobar=bar,baz=blah", "foo=bar;baz=blah", false},
    {"x=", "x=", true},
    {"x= ", "x=", true},
    {"x=,z= ", "x=;z=", true},
    {"x=", "x=a", false},
    {"\rx", "x=a", true},
    {"this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash=1", true},
    {"this-is-another-dns.domain.com/key-with-dash in (so,what)",
     "this-is-another-dns.domain.com/key-with-dash=what", true},
    {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99=4", true},
    {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99=tick.tack.clock", false},
    {"foo  in\t (abc)", "foo=abc", true},
    {"x notin\n (abc)", "x=abd", true},
    {"x  notin\t\t(abc,def)", "x=def", false},
    {"x in (abc,)", "x=", true},
    {"x in (abc,)", "x=abc", true},
    {"x in ()", "x=", true},
    {"x in ()", "x=a", false},
    {"x in (,abc)", "x=", true},
    {"x in (a,,b)", "x=", true},
    {"x in (a,b,b,a)", "x=b", true},
    {"x notin (abc,,def),bar,z in (),w", "bar=1;w=2;z=", true},
    {"x notin (abc,,def),bar,z in (),w", "bar=1;w=2;z=;x=", false},
    {"x,y in (a)", "x=1", false},
    {"x,y in (a)", "x=1;y=a", true},
    {"in in (in)", "in=in", true},
    {"notin notin (notin)", "notin=in", true},
    {"x=a,x=b", "x=a", false},
    {" x = a , y ", "x=a;y=", true},
    {"x>007", "x=8", true},
};

static void test_parse_matches(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const label_case *c = &parse_cases[i];
        ms_label_selector s;
        ms_error err = {0};
        if (ms_label_selector_parse(c->sel, f->in, &f->a, &s, &err) != MS_OK)
            fail_msg("case %zu: \"%s\": %s", i, c->sel, err.msg);
        assert_false(s.nothing);
        ms_labels l = fx_labels(f, c->labels);
        if (ms_label_selector_matches(&s, &l, f->in) != c->match)
            fail_msg("case %zu: \"%s\" against {%s}: want %d", i, c->sel, c->labels, c->match);
    }
}

static void test_parse_shape(void **state) {
    fx_labels_env *f = *state;
    ms_label_selector s;
    ms_error err = {0};
    assert_int_equal(ms_label_selector_parse("a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j,k>3,l<5",
                                             f->in, &f->a, &s, &err),
                     MS_OK);
    static const struct { const char *key; ms_selector_op op; uint32_t nvalues; int64_t number; } want[] = {
        {"a", MS_OP_EQUALS, 1, 0}, {"c", MS_OP_EQUALS, 1, 0}, {"e", MS_OP_NOT_EQUALS, 1, 0},
        {"g", MS_OP_IN, 2, 0}, {"h", MS_OP_NOT_IN, 1, 0}, {"i", MS_OP_EXISTS, 0, 0},
        {"j", MS_OP_DOES_NOT_EXIST, 0, 0}, {"k", MS_OP_GT, 1, 3}, {"l", MS_OP_LT, 1, 5},
    };
    assert_int_equal(s.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < s.n; i++) {
        assert_int_equal(s.reqs[i].key, ms_intern_cstr(f->in, want[i].key));
        assert_int_equal(s.reqs[i].op, want[i].op);
        assert_int_equal(s.reqs[i].nvalues, want[i].nvalues);
        if (want[i].op == MS_OP_GT || want[i].op == MS_OP_LT)
            assert_int_equal(s.reqs[i].number, want[i].number);
    }
    assert_int_equal(s.reqs[0].values[0], ms_intern_cstr(f->in, "b"));

    /* "(b,,a,)" holds "" once */
    assert_int_equal(ms_label_selector_parse("x in (b,,a,)", f->in, &f->a, &s, &err), MS_OK);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.reqs[0].nvalues, 3);
    assert_int_equal(s.reqs[0].values[0], MS_STR_EMPTY);

    assert_int_equal(ms_label_selector_parse(NULL, f->in, &f->a, &s, &err), MS_OK);
    assert_false(s.nothing);
    assert_int_equal(s.n, 0);
}

static const error_case parse_errors[] = {
    {"x=a||y=b", "unable to parse requirement: invalid label value: \"a||y\": at key: \"x\": "},
    {"x=a|b,y=b", "unable to parse requirement: invalid label value: \"a|b\": at key: \"x\": "},
    {"x==a==b", "found '==', expected: ',' or 'end of string'"},
    {"!x=a", "found '=', expected: ',' or 'end of string'"},
    {"x<a", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"},
    {"x>", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"},
    {"x>1.5", "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"},
    {"x>-1", "unable to parse requirement: invalid label value: \"-1\": at key: \"x\": "},
    {"x=a,", "found '', expected: identifier after ','"},
    {",x", "found ',', expected: !, identifier, or 'end of string'"},
    {"=a", "found '=', expected: !, identifier, or 'end of string'"},
    {"x in a", "unable to parse requirement: found 'a' expected: '('"},
    {"x in (a", "unable to parse requirement: found '', expected: ',' or ')'"},
    {"x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"},
    {"x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
    {"x in (a,,)", "unable to parse requirement: found ')', expected: ',', or identifier"},
    {"x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
    {"x notin", "unable to parse requirement: found '' expected: '('"},
    {"x y", "unable to parse requirement: found 'y', expected: '=', '!=', '==', 'in', notin'"},
    {"x (a)", "unable to parse requirement: found '(', expected: '=', '!=', '==', 'in', notin'"},
    {"x=(", "unable to parse requirement: found '(', expected: identifier"},
    {"!", "unable to parse requirement: found '', expected: identifier"},
    {"!!x", "unable to parse requirement: found '!', expected: identifier"},
    {"a b=c", "unable to parse requirement: found 'b', expected: '=', '!=', '==', 'in', notin'"},
    {"-x", "unable to parse requirement: invalid label key \"-x\": name part "},
    {"a/b/c", "unable to parse requirement: invalid label key \"a/b/c\": a qualified name "},
    {"/a", "unable to parse requirement: invalid label key \"/a\": prefix part must be non-empty"},
    {"Example.com/a", "unable to parse requirement: invalid label key \"Example.com/a\": prefix part "},
    {"a/", "unable to parse requirement: invalid label key \"a/\": name part must be non-empty"},
    {"x=a b", "found 'b', expected: ',' or 'end of string'"},
    {"x=_a", "unable to parse requirement: invalid label value: \"_a\": at key: \"x\": "},
    {"x in (a,b_)", "unable to parse requirement: invalid label value: \"b_\": at key: \"x\": "},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
     "unable to parse requirement: invalid label key \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaa\": name part must be no more than 63 characters"},
};

static void test_parse_errors(void **state) {
    fx_labels_env *f = *state;
    for (size_t i = 0; i < sizeof parse_errors / sizeof parse_errors[0]; i++) {
        ms_label_selector s;
        ms_error err = {0};
        if (ms_label_selector_parse(parse_errors[i].sel, f->in, &f->a, &s, &err) != MS_EINVAL)
            fail_msg("case %zu: \"%s\" parsed", i, parse_errors[i].sel);
        if (strncmp(err.msg, parse_errors[i].msg, strlen(parse_errors[i].msg)) != 0)
            fail_msg("case %zu: \"%s\": got \"%s\", want prefix \"%s\"", i, parse_errors[i].sel,
                     err.msg, parse_errors[i].msg);
        assert_true(s.nothing);
        assert_int_equal(s.n, 0);
    }
}

/* A 10 KB bad value is quoted and cut at 64 bytes. */
static void test_parse_error_quotes_a_long_value(void **state) {
    fx_labels_env *f = *state;
    char *sel = tu_repeat("x=_", 'a', 10240, "");
    ms_label_selector s;
    ms_error err = {0};
    assert_int_equal(ms_label_selector_parse(sel, f->in, &f->a, &s, &err), MS_EINVAL);
    assert_string_equal(err.msg, "unable to parse requirement: invalid label value: \"_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\": at key: "
                                 "\"x\": must be no more than 63 characters");
    free(sel);
}

static void test_key_length_limits(void **state) {
    fx_labels_env *f = *state;
    char key[400];
    ms_label_selector s;
    ms_error err = {0};
    /* name part: 63 ok, 64 not; prefix: 253 ok, 254 not */
    memset(key, 'a', 63);
    key[63] = '\0';
    assert_int_equal(ms_label_selector_parse(key, f->in, &f->a, &s, &err), MS_OK);
    memset(key, 'a', 253);
    strcpy(key + 253, "/b");
    assert_int_equal(ms_label_selector_parse(key, f->in, &f->a, &s, &err), MS_OK);
    memset(key, 'a', 254);
    strcpy(key + 254, "/b");
    assert_int_equal(ms_label_selector_parse(key, f->in, &f->a, &s, &err), MS_EINVAL);
    /* value: 63 ok, 64 not */
    strcpy(key, "k=");
    memset(key + 2, 'v', 63);
    key[65] = '\0';
    assert_int_equal(ms_label_selector_parse(key, f->in, &f->a, &s, &err), MS_OK);
    strcpy(key + 65, "v");
    assert_int_equal(ms_label_selector_parse(key, f->in, &f->a, &s, &err), MS_EINVAL);
    /* prefix labels: lower case alphanumerics and '-', dots between */
    static const struct { const char *key; ms_rc rc; } prefixes[] = {
        {"a.b-c.d/x", MS_OK}, {"a..b/x", MS_EINVAL}, {"-a/x", MS_EINVAL}, {"a-/x", MS_EINVAL},
        {"a.-b/x", MS_EINVAL}, {"a_b/x", MS_EINVAL}, {".a/x", MS_EINVAL}, {"a./x", MS_EINVAL},
        {"1.2.3/x", MS_OK}, {"a/X_y.Z", MS_OK}, {"a/x.", MS_EINVAL},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (ms_label_selector_parse(prefixes[i].key, f->in, &f->a, &s, &err) != prefixes[i].rc)
            fail_msg("key %s: want rc %d", prefixes[i].key, prefixes[i].rc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_matches, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_parse_shape, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_parse_errors, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_parse_error_quotes_a_long_value, fx_labels_setup, fx_labels_teardown),
        cmocka_unit_test_setup_teardown(test_key_length_limits, fx_labels_setup, fx_labels_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
