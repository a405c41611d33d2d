#include "moonsched/selector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api/validation.h"

/* ---- validation (labels.NewRequirement's rules) ---------------------- */

typedef struct slice {
    const char *s;
    size_t n;
} slice;

/* validation.IsQualifiedName; on failure writes upstream's reason. */
static bool check_label_key(slice k, char *why, size_t nwhy) {
    const char *problem = ms_qualified_name_problem(k.s, k.n);
    if (!problem) return true;
    snprintf(why, nwhy, "invalid label key \"%.*s\": %s", (int)(k.n > 200 ? 200 : k.n), k.s,
             problem);
    return false;
}

/* validation.IsValidLabelValue: empty, or a qualified name's name part. */
static bool check_label_value(slice k, slice v, char *why, size_t nwhy) {
    const char *problem = ms_label_value_problem(v.s, v.n);
    if (!problem) return true;
    snprintf(why, nwhy, "invalid label value: \"%.*s\": at key: \"%.*s\": %s",
             (int)(v.n > 100 ? 100 : v.n), v.s, (int)(k.n > 100 ? 100 : k.n), k.s, problem);
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

/* Interns the values into `a`, sorted by id and without duplicates (upstream
 * keeps a set). false only when out of memory. */
static bool intern_values(ms_interner *in, ms_arena *a, const slice *vals, uint32_t n,
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

typedef enum build_result { BUILD_OK, BUILD_INVALID, BUILD_NOMEM } build_result;

/* labels.NewRequirement: validates, then compiles into r. On BUILD_INVALID
 * `why` says what upstream would have said. */
static build_result build_requirement(ms_interner *in, ms_arena *a, slice key, ms_selector_op op,
                                      const slice *vals, uint32_t n, ms_requirement *r, char *why,
                                      size_t nwhy) {
    memset(r, 0, sizeof *r);
    if (!check_label_key(key, why, nwhy)) return BUILD_INVALID;
    switch (op) {
    case MS_OP_IN:
    case MS_OP_NOT_IN:
        if (n == 0) {
            snprintf(why, nwhy, "for 'in', 'notin' operators, values set can't be empty");
            return BUILD_INVALID;
        }
        break;
    case MS_OP_EQUALS:
    case MS_OP_NOT_EQUALS:
        if (n != 1) {
            snprintf(why, nwhy, "exact-match compatibility requires one single value");
            return BUILD_INVALID;
        }
        break;
    case MS_OP_EXISTS:
    case MS_OP_DOES_NOT_EXIST:
        if (n != 0) {
            snprintf(why, nwhy, "values set must be empty for exists and does not exist");
            return BUILD_INVALID;
        }
        break;
    case MS_OP_GT:
    case MS_OP_LT:
        if (n != 1) {
            snprintf(why, nwhy, "for 'Gt', 'Lt' operators, exactly one value is required");
            return BUILD_INVALID;
        }
        if (!parse_int64(vals[0].s, vals[0].n, &r->number)) {
            snprintf(why, nwhy, "for 'Gt', 'Lt' operators, the value must be an integer");
            return BUILD_INVALID;
        }
        break;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!check_label_value(key, vals[i], why, nwhy)) return BUILD_INVALID;
    r->key = ms_intern(in, key.s, key.n);
    r->op = (uint8_t)op;
    if (r->key == MS_STR_NONE || !intern_values(in, a, vals, n, r)) return BUILD_NOMEM;
    return BUILD_OK;
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

/* ---- JSON ------------------------------------------------------------- */

#define PATH_MAX_LEN 400

static const char *json_type(const cJSON *j) {
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsBool(j)) return "boolean";
    if (cJSON_IsNumber(j)) return "number";
    if (cJSON_IsString(j)) return "string";
    if (cJSON_IsArray(j)) return "array";
    if (cJSON_IsObject(j)) return "object";
    return "invalid";
}

static ms_rc type_error(ms_error *err, const char *path, const char *want, const cJSON *got) {
    return ms_error_set(err, MS_EINVAL, "%s: expected %s, got %s", path, want, json_type(got));
}

static ms_rc nomem(ms_error *err) { return ms_error_set(err, MS_ENOMEM, "out of memory"); }

/* "parent.name", or "name" when there is no parent. Over-long paths are
 * cut: they only feed error messages. */
static void path_join(char *buf, const char *parent, const char *name) {
    int r = parent && *parent ? snprintf(buf, PATH_MAX_LEN, "%s.%s", parent, name)
                              : snprintf(buf, PATH_MAX_LEN, "%s", name);
    if (r < 0) buf[0] = '\0';
}

static void path_index(char *buf, const char *parent, int i) {
    if (snprintf(buf, PATH_MAX_LEN, "%s[%d]", parent, i) < 0) buf[0] = '\0';
}

/* JSON null reads as Go's zero value: "" for a string, nil for a list. */
static ms_rc json_string(const cJSON *j, slice *out, const char *path, ms_error *err) {
    if (!j || cJSON_IsNull(j)) {
        out->s = "";
        out->n = 0;
        return MS_OK;
    }
    if (!cJSON_IsString(j) || !j->valuestring) return type_error(err, path, "string", j);
    out->s = j->valuestring;
    out->n = strlen(j->valuestring);
    return MS_OK;
}

static ms_rc json_list(const cJSON *j, const char *path, int *n, ms_error *err) {
    *n = 0;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsArray(j)) return type_error(err, path, "array", j);
    *n = cJSON_GetArraySize(j);
    return MS_OK;
}

/* One {key, operator, values} object, decoded but not yet validated. Values
 * point into the cJSON tree; `vals` is heap memory the caller frees. */
typedef struct raw_requirement {
    slice key;
    slice op;
    uint32_t n;
    slice *vals;
} raw_requirement;

static ms_rc raw_requirement_from_json(const cJSON *j, const char *path, raw_requirement *r,
                                       ms_error *err) {
    char sub[PATH_MAX_LEN], item[PATH_MAX_LEN];
    memset(r, 0, sizeof *r);
    r->key.s = r->op.s = "";
    if (cJSON_IsNull(j)) return MS_OK;
    if (!cJSON_IsObject(j)) return type_error(err, path, "object", j);
    ms_rc rc;
    path_join(sub, path, "key");
    if ((rc = json_string(cJSON_GetObjectItemCaseSensitive(j, "key"), &r->key, sub, err)))
        return rc;
    path_join(sub, path, "operator");
    if ((rc = json_string(cJSON_GetObjectItemCaseSensitive(j, "operator"), &r->op, sub, err)))
        return rc;
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(j, "values");
    int n;
    path_join(sub, path, "values");
    if ((rc = json_list(vals, sub, &n, err))) return rc;
    if (n == 0) return MS_OK;
    r->vals = malloc(sizeof *r->vals * (size_t)n);
    if (!r->vals) return nomem(err);
    int i = 0;
    for (const cJSON *v = vals->child; v; v = v->next, i++) {
        path_index(item, sub, i);
        if ((rc = json_string(v, &r->vals[i], item, err))) {
            free(r->vals);
            r->vals = NULL;
            return rc;
        }
    }
    r->n = (uint32_t)n;
    return MS_OK;
}

static bool slice_eq(slice s, const char *lit) {
    return s.n == strlen(lit) && memcmp(s.s, lit, s.n) == 0;
}

/* Operator names of metav1.LabelSelectorOperator and v1.NodeSelectorOperator;
 * Gt/Lt only for node selectors. */
static bool op_from_name(slice s, bool node, ms_selector_op *op) {
    if (slice_eq(s, "In")) *op = MS_OP_IN;
    else if (slice_eq(s, "NotIn")) *op = MS_OP_NOT_IN;
    else if (slice_eq(s, "Exists")) *op = MS_OP_EXISTS;
    else if (slice_eq(s, "DoesNotExist")) *op = MS_OP_DOES_NOT_EXIST;
    else if (node && slice_eq(s, "Gt")) *op = MS_OP_GT;
    else if (node && slice_eq(s, "Lt")) *op = MS_OP_LT;
    else return false;
    return true;
}

/* Compiles one matchExpressions item. *valid is false when upstream's
 * conversion would fail for it. */
static ms_rc expression_from_json(const cJSON *j, bool node, ms_interner *in, ms_arena *a,
                                  ms_requirement *out, bool *valid, const char *path,
                                  ms_error *err) {
    raw_requirement raw;
    ms_rc rc = raw_requirement_from_json(j, path, &raw, err);
    if (rc) return rc;
    ms_selector_op op;
    char why[256];
    *valid = false;
    if (op_from_name(raw.op, node, &op)) {
        build_result b = build_requirement(in, a, raw.key, op, raw.vals, raw.n, out, why, sizeof why);
        if (b == BUILD_NOMEM) rc = nomem(err);
        *valid = b == BUILD_OK;
    }
    free(raw.vals);
    return rc;
}

/* Go map semantics: with a repeated key in matchLabels the last one wins. */
static bool repeated_later(const cJSON *item) {
    for (const cJSON *o = item->next; o; o = o->next)
        if (o->string && item->string && strcmp(o->string, item->string) == 0) return true;
    return false;
}

ms_rc ms_label_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                  ms_label_selector *out, const char *field, ms_error *err) {
    memset(out, 0, sizeof *out);
    out->nothing = true;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    const char *where = field && *field ? field : "labelSelector";
    if (!cJSON_IsObject(j)) return type_error(err, where, "object", j);

    char path[PATH_MAX_LEN], item[PATH_MAX_LEN];
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(j, "matchLabels");
    path_join(path, field, "matchLabels");
    uint32_t nlabels = 0;
    if (labels && !cJSON_IsNull(labels)) {
        if (!cJSON_IsObject(labels)) return type_error(err, path, "object", labels);
        for (const cJSON *l = labels->child; l; l = l->next) {
            slice v;
            path_join(item, path, l->string ? l->string : "");
            ms_rc rc = json_string(l, &v, item, err);
            if (rc) return rc;
            nlabels++;
        }
    }
    const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(j, "matchExpressions");
    int nexprs;
    char epath[PATH_MAX_LEN];
    path_join(epath, field, "matchExpressions");
    ms_rc rc = json_list(exprs, epath, &nexprs, err);
    if (rc) return rc;

    out->nothing = false;
    if (nlabels + (uint32_t)nexprs == 0) return MS_OK;   /* {}: everything */
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, nlabels + (uint32_t)nexprs);
    if (!reqs) return nomem(err);
    uint32_t n = 0;
    bool valid = true;
    char why[256];
    if (nlabels) {
        for (const cJSON *l = labels->child; l; l = l->next) {
            if (repeated_later(l)) continue;
            slice k = {l->string ? l->string : "", l->string ? strlen(l->string) : 0}, v;
            json_string(l, &v, "", err);   /* type checked above */
            build_result b = build_requirement(in, a, k, MS_OP_EQUALS, &v, 1, &reqs[n], why,
                                               sizeof why);
            if (b == BUILD_NOMEM) return nomem(err);
            if (b == BUILD_INVALID) valid = false;
            n++;
        }
    }
    int i = 0;
    for (const cJSON *e = nexprs ? exprs->child : NULL; e; e = e->next, i++) {
        bool ok;
        path_index(item, epath, i);
        rc = expression_from_json(e, false, in, a, &reqs[n], &ok, item, err);
        if (rc) {
            out->nothing = true;
            return rc;
        }
        if (!ok) valid = false;
        n++;
    }
    if (!valid) {
        /* A selector that fails to convert selects nothing. */
        out->nothing = true;
        return MS_OK;
    }
    out->reqs = reqs;
    out->n = n;
    return MS_OK;
}

/* nodeSelectorRequirementsAsFieldSelector for one item. */
static ms_rc field_from_json(const cJSON *j, ms_interner *in, ms_arena *a, ms_requirement *out,
                             bool *valid, const char *path, ms_error *err) {
    raw_requirement raw;
    ms_rc rc = raw_requirement_from_json(j, path, &raw, err);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    *valid = false;
    bool in_op = slice_eq(raw.op, "In"), not_in = slice_eq(raw.op, "NotIn");
    if ((in_op || not_in) && raw.n == 1) {
        out->op = in_op ? MS_OP_IN : MS_OP_NOT_IN;
        out->key = ms_intern(in, raw.key.s, raw.key.n);
        out->number = slice_eq(raw.key, "metadata.name");
        if (out->key == MS_STR_NONE || !intern_values(in, a, raw.vals, 1, out)) rc = nomem(err);
        *valid = true;
    }
    free(raw.vals);
    return rc;
}

ms_rc ms_node_selector_term_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                      ms_node_selector_term *out, const char *field,
                                      ms_error *err) {
    memset(out, 0, sizeof *out);
    const char *where = field && *field ? field : "nodeSelectorTerm";
    if (!j || cJSON_IsNull(j)) return MS_OK;   /* empty term: matches nothing */
    if (!cJSON_IsObject(j)) return type_error(err, where, "object", j);

    char epath[PATH_MAX_LEN], fpath[PATH_MAX_LEN], item[PATH_MAX_LEN];
    const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(j, "matchExpressions");
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(j, "matchFields");
    int nexpr, nfields;
    path_join(epath, field, "matchExpressions");
    path_join(fpath, field, "matchFields");
    ms_rc rc = json_list(exprs, epath, &nexpr, err);
    if (rc) return rc;
    if ((rc = json_list(fields, fpath, &nfields, err))) return rc;
    if (nexpr + nfields == 0) return MS_OK;

    ms_requirement *expr = nexpr ? MS_ARENA_NEW(a, ms_requirement, nexpr) : NULL;
    ms_requirement *fld = nfields ? MS_ARENA_NEW(a, ms_requirement, nfields) : NULL;
    if ((nexpr && !expr) || (nfields && !fld)) return nomem(err);
    bool valid = true;
    int i = 0;
    for (const cJSON *e = nexpr ? exprs->child : NULL; e; e = e->next, i++) {
        bool ok;
        path_index(item, epath, i);
        if ((rc = expression_from_json(e, true, in, a, &expr[i], &ok, item, err))) return rc;
        if (!ok) valid = false;
    }
    i = 0;
    for (const cJSON *f = nfields ? fields->child : NULL; f; f = f->next, i++) {
        bool ok;
        path_index(item, fpath, i);
        if ((rc = field_from_json(f, in, a, &fld[i], &ok, item, err))) return rc;
        if (!ok) valid = false;
    }
    out->invalid = !valid;
    out->nexpr = (uint32_t)nexpr;
    out->expr = expr;
    out->nfields = (uint32_t)nfields;
    out->fields = fld;
    return MS_OK;
}

ms_rc ms_node_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                 ms_node_selector *out, const char *field, ms_error *err) {
    memset(out, 0, sizeof *out);
    if (!j || cJSON_IsNull(j)) return MS_OK;
    const char *where = field && *field ? field : "nodeSelector";
    if (!cJSON_IsObject(j)) return type_error(err, where, "object", j);
    char path[PATH_MAX_LEN], item[PATH_MAX_LEN];
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(j, "nodeSelectorTerms");
    int n;
    path_join(path, field, "nodeSelectorTerms");
    ms_rc rc = json_list(terms, path, &n, err);
    if (rc || n == 0) return rc;
    ms_node_selector_term *t = MS_ARENA_NEW(a, ms_node_selector_term, n);
    if (!t) return nomem(err);
    int i = 0;
    for (const cJSON *e = terms->child; e; e = e->next, i++) {
        path_index(item, path, i);
        if ((rc = ms_node_selector_term_from_json(e, in, a, &t[i], item, err))) return rc;
    }
    out->n = (uint32_t)n;
    out->terms = t;
    return MS_OK;
}

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
    slice lit;
} token;

typedef struct parser {
    const char *s;
    size_t pos, end;
    bool peeked;
    token next;
    char *msg;        /* error text, when a step fails */
    size_t nmsg;
    bool oom;
    slice *vals;      /* scratch for one requirement's values (heap) */
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
    k.t = slice_eq(k.lit, "in") ? T_IN : slice_eq(k.lit, "notin") ? T_NOT_IN : T_IDENT;
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

static bool add_value(parser *p, slice v) {
    if (p->nvals == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 8;
        slice *nv = realloc(p->vals, sizeof *nv * cap);
        if (!nv) {
            p->oom = true;
            return false;
        }
        p->vals = nv;
        p->cap = cap;
    }
    p->vals[p->nvals++] = v;
    return true;
}

static const slice EMPTY = {"", 0};

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

/* Returns BUILD_OK with r filled, or an error in p->msg. */
static build_result parse_requirement(parser *p, ms_interner *in, ms_arena *a, ms_requirement *r) {
    p->nvals = 0;
    bool not = false;
    token k = consume(p, true);
    if (k.t == T_NOT) {
        not = true;
        k = consume(p, true);
    }
    if (k.t != T_IDENT) return fail(p, "found '%.*s', expected: identifier", k), BUILD_INVALID;
    slice key = k.lit;
    if (!check_label_key(key, p->msg, p->nmsg)) return BUILD_INVALID;
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
                   BUILD_INVALID;
        }
        if (!ok) return BUILD_INVALID;
    }
    return build_requirement(in, a, key, op, p->vals, p->nvals, r, p->msg, p->nmsg);
}

typedef struct req_list {
    ms_requirement *items;
    uint32_t n, cap;
} req_list;

static bool req_list_push(req_list *l, ms_requirement **slot) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        ms_requirement *ni = realloc(l->items, sizeof *ni * cap);
        if (!ni) return false;
        l->items = ni;
        l->cap = cap;
    }
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
        build_result b = parse_requirement(p, in, a, r);
        if (b == BUILD_NOMEM || p->oom) return nomem(err);
        if (b == BUILD_INVALID)
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
