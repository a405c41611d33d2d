/* Selector decoders and matchers on arbitrary input: the bytes as
 * labels.Parse text, and (when they are JSON) as a metav1.LabelSelector, a
 * v1.NodeSelector and a single NodeSelectorTerm. Every compiled selector is
 * checked for its structural invariants and matched against a few label
 * sets, one of them built from the selector's own keys and values so that
 * positive matches are reached too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"
#include "moonsched/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) \
    do { \
        if (!(c)) __builtin_trap(); \
    } while (0)

typedef struct ctx {
    ms_interner *in;
    ms_arena a;
    ms_labels sets[4];
    ms_str names[2];
} ctx;

static ms_labels make_labels(ctx *c, const char *const *kv, uint32_t n) {
    ms_labels l = {n, MS_ARENA_NEW(&c->a, ms_label, n ? n : 1)};
    for (uint32_t i = 0; i < n; i++) {
        l.items[i].key = ms_intern_cstr(c->in, kv[2 * i]);
        l.items[i].value = ms_intern_cstr(c->in, kv[2 * i + 1]);
    }
    ms_labels_sort(&l);
    return l;
}

static void check_requirement(const ms_requirement *r, bool node_field) {
    CHECK(r->op <= MS_OP_NOT_EQUALS);
    for (uint32_t i = 1; i < r->nvalues; i++) CHECK(r->values[i - 1] < r->values[i]);
    for (uint32_t i = 0; i < r->nvalues; i++) CHECK(r->values[i] != MS_STR_NONE);
    if (node_field) {
        CHECK(r->op == MS_OP_IN || r->op == MS_OP_NOT_IN);
        CHECK(r->nvalues == 1);
        return;
    }
    CHECK(r->key != MS_STR_NONE);
    switch (r->op) {
    case MS_OP_IN:
    case MS_OP_NOT_IN: CHECK(r->nvalues >= 1); break;
    case MS_OP_EXISTS:
    case MS_OP_DOES_NOT_EXIST: CHECK(r->nvalues == 0); break;
    default: CHECK(r->nvalues == 1); break;
    }
}

/* Labels that satisfy In/Equals requirements of s (the first value of each),
 * so that matching gets past the first requirement. */
static ms_labels labels_from(ctx *c, const ms_requirement *reqs, uint32_t n) {
    ms_labels l = {0, MS_ARENA_NEW(&c->a, ms_label, n ? n : 1)};
    if (!l.items) return l;
    for (uint32_t i = 0; i < n; i++) {
        const ms_requirement *r = &reqs[i];
        if (r->op == MS_OP_DOES_NOT_EXIST || r->op == MS_OP_NOT_IN || r->op == MS_OP_NOT_EQUALS)
            continue;
        ms_str v = r->nvalues ? r->values[0] : MS_STR_EMPTY;
        if (r->op == MS_OP_GT || r->op == MS_OP_LT) v = ms_intern_cstr(c->in, r->op == MS_OP_GT ? "99" : "-1");
        l.items[l.n].key = r->key;
        l.items[l.n].value = v;
        l.n++;
    }
    ms_labels_sort(&l);
    return l;
}

static void exercise_label_selector(ctx *c, const ms_label_selector *s) {
    if (s->nothing) {
        for (int i = 0; i < 4; i++) CHECK(!ms_label_selector_matches(s, &c->sets[i], c->in));
        return;
    }
    for (uint32_t i = 0; i < s->n; i++) check_requirement(&s->reqs[i], false);
    if (s->n == 0) CHECK(ms_label_selector_matches(s, &c->sets[0], c->in));
    for (int i = 0; i < 4; i++) {
        bool all = true;
        for (uint32_t k = 0; k < s->n; k++)
            all &= ms_requirement_matches(&s->reqs[k], &c->sets[i], c->in);
        CHECK(ms_label_selector_matches(s, &c->sets[i], c->in) == all);
    }
    ms_labels own = labels_from(c, s->reqs, s->n);
    (void)ms_label_selector_matches(s, &own, c->in);
}

static void exercise_term(ctx *c, const ms_node_selector_term *t) {
    /* An invalid term's requirements may be left unfilled. */
    for (uint32_t i = 0; !t->invalid && i < t->nexpr; i++) check_requirement(&t->expr[i], false);
    for (uint32_t i = 0; !t->invalid && i < t->nfields; i++) check_requirement(&t->fields[i], true);
    ms_labels own = labels_from(c, t->expr, t->nexpr);
    ms_str own_name = t->nfields && t->fields[0].nvalues ? t->fields[0].values[0] : c->names[0];
    bool m = ms_node_selector_term_matches(t, &own, own_name, c->in);
    if (t->invalid || (t->nexpr == 0 && t->nfields == 0)) CHECK(!m);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            m = ms_node_selector_term_matches(t, &c->sets[i], c->names[k], c->in);
            if (t->invalid) CHECK(!m);
        }
}

static void exercise_node_selector(ctx *c, const ms_node_selector *s) {
    for (uint32_t i = 0; i < s->n; i++) exercise_term(c, &s->terms[i]);
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            bool any = false;
            for (uint32_t t = 0; t < s->n; t++)
                any |= ms_node_selector_term_matches(&s->terms[t], &c->sets[i], c->names[k], c->in);
            CHECK(ms_node_selector_matches(s, &c->sets[i], c->names[k], c->in) == any);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ctx c;
    c.in = ms_interner_new();
    if (!c.in) return 0;
    ms_arena_init(&c.a, 4096);
    static const char *const s1[] = {"a", "b"};
    static const char *const s2[] = {"a", "1", "b", "-5", "example.com/x", "y", "in", "notin",
                                     "zone", "", "n", "9223372036854775807"};
    static const char *const s3[] = {"x", "y", "z", "w"};
    c.sets[0] = make_labels(&c, NULL, 0);
    c.sets[1] = make_labels(&c, s1, 1);
    c.sets[2] = make_labels(&c, s2, 6);
    c.sets[3] = make_labels(&c, s3, 2);
    c.names[0] = ms_intern_cstr(c.in, "n1");
    c.names[1] = MS_STR_EMPTY;

    char *text = malloc(size + 1);
    if (!text) goto out;
    memcpy(text, data, size);
    text[size] = '\0';

    ms_label_selector ls;
    ms_error err = {0};
    ms_rc rc = ms_label_selector_parse(text, c.in, &c.a, &ls, &err);
    if (rc == MS_OK) {
        CHECK(!ls.nothing);
        exercise_label_selector(&c, &ls);
    } else {
        CHECK(rc == MS_EINVAL && err.msg[0] != '\0' && ls.nothing);
    }

    cJSON *j = cJSON_ParseWithLength(text, size);
    if (j) {
        ms_node_selector ns;
        ms_node_selector_term t;
        if (ms_label_selector_from_json(j, c.in, &c.a, &ls, "spec.selector", &err) == MS_OK)
            exercise_label_selector(&c, &ls);
        else
            CHECK(err.msg[0] != '\0');
        if (ms_node_selector_from_json(j, c.in, &c.a, &ns, "spec.affinity", &err) == MS_OK)
            exercise_node_selector(&c, &ns);
        if (ms_node_selector_term_from_json(j, c.in, &c.a, &t, NULL, &err) == MS_OK)
            exercise_term(&c, &t);
        cJSON_Delete(j);
    }
    free(text);
out:
    ms_arena_free(&c.a);
    ms_interner_free(c.in);
    return 0;
}
