/* Label and node selectors: requirements compiled as labels.NewRequirement
 * does, matching, and the text syntax of labels.Parse. Their JSON forms are
 * read in codec/decode_selector.c. */
#include "moonsched/selector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector_build.h"
#include "api/validation.h"
#include "base/array.h"
#include "base/quote.h"

/* ---- validation (labels.NewRequirement's rules) ---------------------- */

/* validation.IsQualifiedName; on failure writes upstream's reason. */
static bool check_label_key(ms_slice k, char *why, size_t nwhy) {
    const char *problem = ms_qualified_name_problem(k.s, k.n);
    if (!problem) return true;
    char q[MS_QUOTE_SIZE];
    snprintf(why, nwhy, "invalid label key %s: %s", ms_quote_n(q, k.s, k.n), problem);
    return false;
}

/* validation.IsValidLabelValue: empty, or a qualified name's name part. */
static bool check_label_value(ms_slice k, ms_slice v, char *why, size_t nwhy) {
    const char *problem = ms_label_value_problem(v.s, v.n);
    if (!problem) return true;
    char qv[MS_QUOTE_SIZE], qk[MS_QUOTE_SIZE];
    snprintf(why, nwhy, "invalid label value: %s: at key: %s: %s", ms_quote_n(qv, v.s, v.n),
             ms_quote_n(qk, k.s, k.n), problem);
    return false;
}

/* strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no
 * overflow. */
static bool parse_int64(const char *s, size_t n, int64_t *out) {
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i == n) return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static int cmp_str(const void *a, const void *b) {
    ms_str x = *(const ms_str *)a, y = *(const ms_str *)b;
    return x < y ? -1 : x > y;
}

bool ms_requirement_intern_values(ms_interner *in, ms_arena *a, const ms_slice *vals, uint32_t n,
                          ms_requirement *r) {
    r->nvalues = 0;
    r->values = NULL;
    if (n == 0) return true;
    ms_str *v = MS_ARENA_NEW(a, ms_str, n);
    if (!v) return false;
    for (uint32_t i = 0; i < n; i++) {
        v[i] = ms_intern(in, vals[i].s, vals[i].n);
        if (v[i] == MS_STR_NONE) return false;
    }
    qsort(v, n, sizeof *v, cmp_str);
    uint32_t out = 0;
    for (uint32_t i = 0; i < n; i++)
        if (out == 0 || v[out - 1] != v[i]) v[out++] = v[i];
    r->values = v;
    r->nvalues = out;
    return true;
}

/* labels.NewRequirement. */
ms_build_result ms_requirement_build(ms_interner *in, ms_arena *a, ms_slice key, ms_selector_op op,
                                      const ms_slice *vals, uint32_t n, ms_requirement *r, char *why,
                                      size_t nwhy) {
    memset(r, 0, sizeof *r);
    if (!check_label_key(key, why, nwhy)) return MS_BUILD_INVALID;
    switch (op) {
    case MS_OP_IN:
    case MS_OP_NOT_IN:
        if (n == 0) {
            snprintf(why, nwhy, "for 'in', 'notin' operators, values set can't be empty");
            return MS_BUILD_INVALID;
        }
        break;
    case MS_OP_EQUALS:
    case MS_OP_NOT_EQUALS:
        if (n != 1) {
            snprintf(why, nwhy, "exact-match compatibility requires one single value");
            return MS_BUILD_INVALID;
        }
        break;
    case MS_OP_EXISTS:
    case MS_OP_DOES_NOT_EXIST:
        if (n != 0) {
            snprintf(why, nwhy, "values set must be empty for exists and does not exist");
            return MS_BUILD_INVALID;
        }
        break;
    case MS_OP_GT:
    case MS_OP_LT:
        if (n != 1) {
            snprintf(why, nwhy, "for 'Gt', 'Lt' operators, exactly one value is required");
            return MS_BUILD_INVALID;
        }
        if (!parse_int64(vals[0].s, vals[0].n, &r->number)) {
            snprintf(why, nwhy, "for 'Gt', 'Lt' operators, the value must be an integer");
            return MS_BUILD_INVALID;
        }
        break;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!check_label_value(key, vals[i], why, nwhy)) return MS_BUILD_INVALID;
    r->key = ms_intern(in, key.s, key.n);
    r->op = (uint8_t)op;
    if (r->key == MS_STR_NONE || !ms_requirement_intern_values(in, a, vals, n, r)) return MS_BUILD_NOMEM;
    return MS_BUILD_OK;
}

/* ---- matching --------------------------------------------------------- */

static bool has_value(const ms_requirement *r, ms_str v) {
    uint32_t lo = 0, hi = r->nvalues;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->values[mid] == v) return true;
        if (r->values[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

bool ms_requirement_matches(const ms_requirement *r, const ms_labels *labels,
                            const ms_interner *in) {
    ms_str v = ms_labels_get(labels, r->key);
    switch ((ms_selector_op)r->op) {
    case MS_OP_IN:
    case MS_OP_EQUALS:
        return v != MS_STR_NONE && has_value(r, v);
    case MS_OP_NOT_IN:
    case MS_OP_NOT_EQUALS:
        return v == MS_STR_NONE || !has_value(r, v);
    case MS_OP_EXISTS:
        return v != MS_STR_NONE;
    case MS_OP_DOES_NOT_EXIST:
        return v == MS_STR_NONE;
    case MS_OP_GT:
    case MS_OP_LT: {
        if (v == MS_STR_NONE) return false;
        int64_t x;
        if (!parse_int64(ms_str_get(in, v), ms_str_len(in, v), &x)) return false;
        return r->op == MS_OP_GT ? x > r->number : x < r->number;
    }
    }
    return false;
}

bool ms_label_selector_matches(const ms_label_selector *s, const ms_labels *labels,
                               const ms_interner *in) {
    if (s->nothing) return false;
    for (uint32_t i = 0; i < s->n; i++)
        if (!ms_requirement_matches(&s->reqs[i], labels, in)) return false;
    return true;
}

/* A matchFields requirement: the node's only field is metadata.name; any
 * other key reads as "" (fields.Set.Get). `number` is 1 when the key is
 * metadata.name (decided when compiling, so matching needs no lookup). */
static bool field_matches(const ms_requirement *r, ms_str node_name) {
    ms_str v = r->number ? node_name : MS_STR_EMPTY;
    bool eq = r->nvalues == 1 && r->values[0] == v;
    return r->op == MS_OP_IN ? eq : !eq;
}

bool ms_node_selector_term_matches(const ms_node_selector_term *t, const ms_labels *node_labels,
                                   ms_str node_name, const ms_interner *in) {
    if (t->invalid || (t->nexpr == 0 && t->nfields == 0)) return false;
    for (uint32_t i = 0; i < t->nexpr; i++)
        if (!ms_requirement_matches(&t->expr[i], node_labels, in)) return false;
    /* Upstream skips matchFields for a node without a name (empty field set). */
    if (node_name == MS_STR_NONE || node_name == MS_STR_EMPTY) return true;
    for (uint32_t i = 0; i < t->nfields; i++)
        if (!field_matches(&t->fields[i], node_name)) return false;
    return true;
}

bool ms_node_selector_matches(const ms_node_selector *s, const ms_labels *node_labels,
                              ms_str node_name, const ms_interner *in) {
    for (uint32_t i = 0; i < s->n; i++)
        if (ms_node_selector_term_matches(&s->terms[i], node_labels, node_name, in)) return true;
    return false;
}

static ms_rc nomem(ms_error *err) { return ms_error_set(err, MS_ENOMEM, "out of memory"); }

/* ---- text syntax (labels.Parse) -------------------------------------- */

typedef enum tok {
    T_EOS,
    T_CLOSE,
    T_COMMA,
    T_NOT,
    T_DOUBLE_EQUALS,
    T_EQUALS,
    T_GT,
    T_IDENT,
    T_IN,
    T_LT,
    T_NOT_EQUALS,
    T_NOT_IN,
    T_OPEN,
} tok;

typedef struct token {
    tok t;
    ms_slice lit;
} token;

typedef struct parser {
    const char *s;
    size_t pos, end;
    bool peeked;
    token next;
    char *msg;        /* error text, when a step fails */
    size_t nmsg;
    bool oom;
    ms_slice *vals;      /* scratch for one requirement's values (heap) */
    uint32_t nvals, cap;
} parser;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static bool is_special(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

static token lex(parser *p) {
    while (p->pos < p->end && is_space(p->s[p->pos])) p->pos++;
    token k = {T_EOS, {p->s + p->pos, 0}};
    if (p->pos >= p->end) return k;
    char c = p->s[p->pos];
    if (is_special(c)) {
        /* Longest match among the operator tokens: only "!=" and "==" are
         * two characters long. */
        char d = p->pos + 1 < p->end ? p->s[p->pos + 1] : 0;
        k.lit.n = 1;
        switch (c) {
        case '(': k.t = T_OPEN; break;
        case ')': k.t = T_CLOSE; break;
        case ',': k.t = T_COMMA; break;
        case '>': k.t = T_GT; break;
        case '<': k.t = T_LT; break;
        case '!':
            k.t = d == '=' ? T_NOT_EQUALS : T_NOT;
            k.lit.n = d == '=' ? 2 : 1;
            break;
        default:
            k.t = d == '=' ? T_DOUBLE_EQUALS : T_EQUALS;
            k.lit.n = d == '=' ? 2 : 1;
            break;
        }
        p->pos += k.lit.n;
        return k;
    }
    size_t start = p->pos;
    while (p->pos < p->end && !is_special(p->s[p->pos]) && !is_space(p->s[p->pos])) p->pos++;
    k.lit.n = p->pos - start;
    k.t = ms_slice_eq(k.lit, "in") ? T_IN : ms_slice_eq(k.lit, "notin") ? T_NOT_IN : T_IDENT;
    return k;
}

/* In the values context the keywords "in" and "notin" are identifiers. */
static token as_value(token k) {
    if (k.t == T_IN || k.t == T_NOT_IN) k.t = T_IDENT;
    return k;
}

static token peek(parser *p, bool values) {
    if (!p->peeked) {
        p->next = lex(p);
        p->peeked = true;
    }
    return values ? as_value(p->next) : p->next;
}

static token consume(parser *p, bool values) {
    token k = peek(p, false);
    p->peeked = false;
    return values ? as_value(k) : k;
}

#define LIT(k) (int)((k).lit.n > 100 ? 100 : (k).lit.n), (k).lit.s

static bool fail(parser *p, const char *fmt, token k) {
    snprintf(p->msg, p->nmsg, fmt, LIT(k));
    return false;
}

static bool add_value(parser *p, ms_slice v) {
    if (!ms_array_grow((void **)&p->vals, &p->cap, p->nvals + 1, sizeof *p->vals)) {
        p->oom = true;
        return false;
    }
    p->vals[p->nvals++] = v;
    return true;
}

static const ms_slice EMPTY = {"", 0};

/* "(" values ")", where empty items (as in "(a,,b)" or "()") are "". */
static bool parse_values(parser *p) {
    token k = consume(p, true);
    if (k.t != T_OPEN) return fail(p, "found '%.*s' expected: '('", k);
    token first = peek(p, true);
    if (first.t == T_CLOSE) {
        consume(p, true);
        return add_value(p, EMPTY);
    }
    if (first.t != T_IDENT && first.t != T_COMMA)
        return fail(p, "found '%.*s', expected: ',', ')' or identifier", first);
    for (;;) {
        k = consume(p, true);
        if (k.t == T_IDENT) {
            if (!add_value(p, k.lit)) return false;
            token n = peek(p, true);
            if (n.t == T_CLOSE) break;
            if (n.t != T_COMMA) return fail(p, "found '%.*s', expected: ',' or ')'", n);
        } else if (k.t == T_COMMA) {
            if (p->nvals == 0 && !add_value(p, EMPTY)) return false;
            token n = peek(p, true);
            if (n.t == T_CLOSE) {
                if (!add_value(p, EMPTY)) return false;
                break;
            }
            if (n.t == T_COMMA) {
                consume(p, true);
                if (!add_value(p, EMPTY)) return false;
            }
        } else {
            return fail(p, "found '%.*s', expected: ',', or identifier", k);
        }
    }
    consume(p, true);   /* the ")" seen above */
    return true;
}

/* The single value after "=", "==", "!=", ">" or "<" ("" when absent). */
static bool parse_exact_value(parser *p) {
    token k = peek(p, true);
    if (k.t == T_EOS || k.t == T_COMMA) return add_value(p, EMPTY);
    k = consume(p, true);
    if (k.t != T_IDENT) return fail(p, "found '%.*s', expected: identifier", k);
    return add_value(p, k.lit);
}

/* Returns MS_BUILD_OK with r filled, or an error in p->msg. */
static ms_build_result parse_requirement(parser *p, ms_interner *in, ms_arena *a, ms_requirement *r) {
    p->nvals = 0;
    bool not = false;
    token k = consume(p, true);
    if (k.t == T_NOT) {
        not = true;
        k = consume(p, true);
    }
    if (k.t != T_IDENT) return fail(p, "found '%.*s', expected: identifier", k), MS_BUILD_INVALID;
    ms_slice key = k.lit;
    if (!check_label_key(key, p->msg, p->nmsg)) return MS_BUILD_INVALID;
    token n = peek(p, true);
    ms_selector_op op;
    if (not || n.t == T_EOS || n.t == T_COMMA) {
        op = not ? MS_OP_DOES_NOT_EXIST : MS_OP_EXISTS;
    } else {
        k = consume(p, false);
        bool ok;
        switch (k.t) {
        case T_IN: op = MS_OP_IN; ok = parse_values(p); break;
        case T_NOT_IN: op = MS_OP_NOT_IN; ok = parse_values(p); break;
        case T_EQUALS:
        case T_DOUBLE_EQUALS: op = MS_OP_EQUALS; ok = parse_exact_value(p); break;
        case T_NOT_EQUALS: op = MS_OP_NOT_EQUALS; ok = parse_exact_value(p); break;
        case T_GT: op = MS_OP_GT; ok = parse_exact_value(p); break;
        case T_LT: op = MS_OP_LT; ok = parse_exact_value(p); break;
        default:
            return fail(p, "found '%.*s', expected: '=', '!=', '==', 'in', notin'", k),
                   MS_BUILD_INVALID;
        }
        if (!ok) return MS_BUILD_INVALID;
    }
    return ms_requirement_build(in, a, key, op, p->vals, p->nvals, r, p->msg, p->nmsg);
}

typedef struct req_list {
    ms_requirement *items;
    uint32_t n, cap;
} req_list;

static bool req_list_push(req_list *l, ms_requirement **slot) {
    if (!ms_array_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
        return false;
    *slot = &l->items[l->n++];
    return true;
}

static ms_rc parse_all(parser *p, ms_interner *in, ms_arena *a, req_list *reqs, ms_error *err) {
    char why[400];
    for (;;) {
        token k = peek(p, true);
        if (k.t == T_EOS) return MS_OK;
        if (k.t != T_IDENT && k.t != T_NOT)
            return ms_error_set(err, MS_EINVAL,
                                "found '%.*s', expected: !, identifier, or 'end of string'",
                                LIT(k));
        ms_requirement *r;
        if (!req_list_push(reqs, &r)) return nomem(err);
        p->msg = why;
        p->nmsg = sizeof why;
        why[0] = '\0';
        ms_build_result b = parse_requirement(p, in, a, r);
        if (b == MS_BUILD_NOMEM || p->oom) return nomem(err);
        if (b == MS_BUILD_INVALID)
            return ms_error_set(err, MS_EINVAL, "unable to parse requirement: %s", why);
        k = consume(p, true);
        if (k.t == T_EOS) return MS_OK;
        if (k.t != T_COMMA)
            return ms_error_set(err, MS_EINVAL, "found '%.*s', expected: ',' or 'end of string'",
                                LIT(k));
        token n = peek(p, true);
        if (n.t != T_IDENT && n.t != T_NOT)
            return ms_error_set(err, MS_EINVAL, "found '%.*s', expected: identifier after ','",
                                LIT(n));
    }
}

ms_rc ms_label_selector_parse(const char *text, ms_interner *in, ms_arena *a,
                              ms_label_selector *out, ms_error *err) {
    memset(out, 0, sizeof *out);
    out->nothing = true;
    parser p = {.s = text ? text : "", .end = text ? strlen(text) : 0};
    req_list reqs = {0};
    ms_rc rc = parse_all(&p, in, a, &reqs, err);
    free(p.vals);
    if (rc == MS_OK && reqs.n) {
        out->reqs = MS_ARENA_NEW(a, ms_requirement, reqs.n);
        if (out->reqs) memcpy(out->reqs, reqs.items, sizeof *reqs.items * reqs.n);
        else rc = nomem(err);
    }
    free(reqs.items);
    if (rc) {
        out->reqs = NULL;
        return rc;
    }
    out->n = reqs.n;
    out->nothing = false;
    return MS_OK;
}

bool ms_label_selector_merge_label_keys(ms_arena *a, const ms_label_selector *s, const ms_str *keys,
                                        uint32_t nkeys, const ms_labels *labels, ms_label_selector *out) {
    *out = *s;
    if (nkeys == 0 || s->nothing) return true;
    uint32_t extra = 0;
    for (uint32_t i = 0; i < nkeys; i++) extra += ms_labels_has(labels, keys[i]);
    if (extra == 0) return true;
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, extra + s->n);
    ms_str *values = MS_ARENA_NEW(a, ms_str, extra);
    if (!reqs || !values) return false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < nkeys; i++) {
        ms_str v = ms_labels_get(labels, keys[i]);
        if (v == MS_STR_NONE) continue;
        values[n] = v;
        reqs[n] = (ms_requirement){.key = keys[i], .op = MS_OP_IN, .nvalues = 1, .values = &values[n]};
        n++;
    }
    if (s->n) memcpy(reqs + n, s->reqs, s->n * sizeof *reqs);
    out->n = n + s->n;
    out->reqs = reqs;
    return true;
}
