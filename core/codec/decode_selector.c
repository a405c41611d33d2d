/* Label and node selectors in their JSON forms (metav1.LabelSelector,
 * v1.NodeSelector, v1.NodeSelectorTerm), compiled as upstream converts
 * them: a selector that fails to convert selects nothing. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector_build.h"
#include "codec/json_reader.h"
#include "moonsched/selector.h"

/* A reader whose errors name fields below `field`. */
static void reader_at(ms_json_reader *r, const char *field, ms_error *err) {
    ms_json_reader_init(r, &ms_json_object_wording, err);
    ms_json_set_path(r, field ? field : "");
}

/* The selector value itself must be an object; its type error names it. */
static ms_rc expect_object(ms_json_reader *r, const cJSON *j, const char *whole) {
    if (cJSON_IsObject(j)) return MS_OK;
    if (!r->plen) ms_json_set_path(r, whole);
    return ms_json_type_error(r, NULL, j, MS_JSON_OBJECT);
}

/* JSON null reads as Go's zero value: "" for a string. */
static ms_rc json_string(ms_json_reader *r, const char *key, const cJSON *j, ms_slice *out) {
    *out = (ms_slice){"", 0};
    if (cJSON_IsNull(j)) return MS_OK;
    const char *s = NULL;
    ms_rc rc = ms_json_string(r, key, j, &s);
    if (rc == MS_OK && s) *out = (ms_slice){s, strlen(s)};
    return rc;
}

/* A list field: null and absent are empty. */
static ms_rc json_list(ms_json_reader *r, const char *key, const cJSON *j, int *n) {
    *n = 0;
    if (cJSON_IsNull(j)) return MS_OK;
    ms_rc rc = ms_json_expect(r, key, j, MS_JSON_ARRAY);
    if (rc == MS_OK && j) *n = cJSON_GetArraySize(j);
    return rc;
}

/* One {key, operator, values} object, decoded but not yet validated. Values
 * point into the cJSON tree; `vals` is heap memory the caller frees. */
typedef struct raw_requirement {
    ms_slice key;
    ms_slice op;
    uint32_t n;
    ms_slice *vals;
} raw_requirement;

static ms_rc raw_requirement_from_json(ms_json_reader *r, const cJSON *j, raw_requirement *out) {
    memset(out, 0, sizeof *out);
    out->key.s = out->op.s = "";
    if (cJSON_IsNull(j)) return MS_OK;
    ms_rc rc = ms_json_expect(r, NULL, j, MS_JSON_OBJECT);
    if (rc != MS_OK ||
        (rc = json_string(r, "key", cJSON_GetObjectItemCaseSensitive(j, "key"), &out->key)) != MS_OK ||
        (rc = json_string(r, "operator", cJSON_GetObjectItemCaseSensitive(j, "operator"), &out->op)) != MS_OK)
        return rc;
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(j, "values");
    int n;
    if ((rc = json_list(r, "values", vals, &n)) != MS_OK || n == 0) return rc;
    if (!(out->vals = malloc(sizeof *out->vals * (size_t)n))) return ms_json_nomem(r);
    size_t saved = ms_json_push(r, "values");
    int i = 0;
    for (const cJSON *v = vals->child; v; v = v->next, i++) {
        size_t at = ms_json_push_index(r, (size_t)i);
        if ((rc = json_string(r, NULL, v, &out->vals[i])) != MS_OK) {
            free(out->vals);
            out->vals = NULL;
            return rc;
        }
        ms_json_pop(r, at);
    }
    ms_json_pop(r, saved);
    out->n = (uint32_t)n;
    return MS_OK;
}

/* Operator names of metav1.LabelSelectorOperator and v1.NodeSelectorOperator;
 * Gt/Lt only for node selectors. */
static bool op_from_name(ms_slice s, bool node, ms_selector_op *op) {
    if (ms_slice_eq(s, "In")) *op = MS_OP_IN;
    else if (ms_slice_eq(s, "NotIn")) *op = MS_OP_NOT_IN;
    else if (ms_slice_eq(s, "Exists")) *op = MS_OP_EXISTS;
    else if (ms_slice_eq(s, "DoesNotExist")) *op = MS_OP_DOES_NOT_EXIST;
    else if (node && ms_slice_eq(s, "Gt")) *op = MS_OP_GT;
    else if (node && ms_slice_eq(s, "Lt")) *op = MS_OP_LT;
    else return false;
    return true;
}

/* Compiles one matchExpressions item. *valid is false when upstream's
 * conversion would fail for it. */
static ms_rc expression_from_json(ms_json_reader *r, const cJSON *j, bool node, ms_interner *in, ms_arena *a,
                                  ms_requirement *out, bool *valid) {
    raw_requirement raw;
    ms_rc rc = raw_requirement_from_json(r, j, &raw);
    if (rc) return rc;
    ms_selector_op op;
    char why[256];
    *valid = false;
    if (op_from_name(raw.op, node, &op)) {
        ms_build_result b = ms_requirement_build(in, a, raw.key, op, raw.vals, raw.n, out, why, sizeof why);
        if (b == MS_BUILD_NOMEM) rc = ms_json_nomem(r);
        *valid = b == MS_BUILD_OK;
    }
    free(raw.vals);
    return rc;
}

/* Each item of `list` (key, n items) read by `item` with the path at
 * key[i]; *valid is cleared when one does not convert. */
typedef ms_rc (*item_fn)(ms_json_reader *r, const cJSON *j, bool node, ms_interner *in, ms_arena *a,
                         ms_requirement *out, bool *valid);

static ms_rc each_item(ms_json_reader *r, const char *key, const cJSON *list, item_fn item, bool node,
                       ms_interner *in, ms_arena *a, ms_requirement *out, bool *valid) {
    size_t saved = ms_json_push(r, key);
    size_t i = 0;
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next, i++) {
        bool ok;
        size_t at = ms_json_push_index(r, i);
        ms_rc rc = item(r, e, node, in, a, &out[i], &ok);
        if (rc != MS_OK) return rc;
        if (!ok) *valid = false;
        ms_json_pop(r, at);
    }
    ms_json_pop(r, saved);
    return MS_OK;
}

/* Go map semantics: with a repeated key in matchLabels the last one wins. */
static bool repeated_later(const cJSON *item) {
    for (const cJSON *o = item->next; o; o = o->next)
        if (o->string && item->string && strcmp(o->string, item->string) == 0) return true;
    return false;
}

/* matchLabels: every value a string; *n the number of labels. */
static ms_rc check_match_labels(ms_json_reader *r, const cJSON *labels, uint32_t *n) {
    *n = 0;
    if (cJSON_IsNull(labels)) return MS_OK;
    ms_rc rc = ms_json_expect(r, "matchLabels", labels, MS_JSON_OBJECT);
    if (rc != MS_OK || !labels) return rc;
    size_t saved = ms_json_push(r, "matchLabels");
    for (const cJSON *l = labels->child; l; l = l->next, (*n)++) {
        ms_slice v;
        if ((rc = json_string(r, l->string ? l->string : "", l, &v)) != MS_OK) return rc;
    }
    ms_json_pop(r, saved);
    return MS_OK;
}

/* Compiles matchLabels (checked) into reqs; returns how many. */
static uint32_t match_labels(ms_json_reader *r, const cJSON *labels, ms_interner *in, ms_arena *a,
                             ms_requirement *reqs, bool *valid, bool *oom) {
    uint32_t n = 0;
    char why[256];
    for (const cJSON *l = labels ? labels->child : NULL; l; l = l->next) {
        if (repeated_later(l)) continue;
        ms_slice k = {l->string ? l->string : "", l->string ? strlen(l->string) : 0}, v;
        json_string(r, NULL, l, &v);   /* type checked above */
        ms_build_result b = ms_requirement_build(in, a, k, MS_OP_EQUALS, &v, 1, &reqs[n], why, sizeof why);
        if (b == MS_BUILD_NOMEM) *oom = true;
        if (b == MS_BUILD_INVALID) *valid = false;
        n++;
    }
    return n;
}

ms_rc ms_label_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                  ms_label_selector *out, const char *field, ms_error *err) {
    memset(out, 0, sizeof *out);
    out->nothing = true;
    if (!j || cJSON_IsNull(j)) return MS_OK;
    ms_json_reader r;
    reader_at(&r, field, err);
    ms_rc rc = expect_object(&r, j, "labelSelector");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(j, "matchLabels");
    const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(j, "matchExpressions");
    uint32_t nlabels = 0;
    int nexprs = 0;
    if (rc != MS_OK || (rc = check_match_labels(&r, labels, &nlabels)) != MS_OK ||
        (rc = json_list(&r, "matchExpressions", exprs, &nexprs)) != MS_OK)
        return rc;
    out->nothing = false;
    if (nlabels + (uint32_t)nexprs == 0) return MS_OK;   /* {}: everything */
    ms_requirement *reqs = MS_ARENA_NEW(a, ms_requirement, nlabels + (uint32_t)nexprs);
    if (!reqs) return ms_json_nomem(&r);
    bool valid = true, oom = false;
    uint32_t n = match_labels(&r, cJSON_IsNull(labels) ? NULL : labels, in, a, reqs, &valid, &oom);
    if (oom) return ms_json_nomem(&r);
    const cJSON *list = nexprs ? exprs : NULL;
    rc = each_item(&r, "matchExpressions", list, expression_from_json, false, in, a, reqs + n, &valid);
    /* A selector that fails to convert, or to be read, selects nothing. */
    out->nothing = rc != MS_OK || !valid;
    if (out->nothing) return rc;
    out->reqs = reqs;
    out->n = n + (uint32_t)nexprs;
    return MS_OK;
}

/* nodeSelectorRequirementsAsFieldSelector for one item. */
static ms_rc field_from_json(ms_json_reader *r, const cJSON *j, bool node, ms_interner *in, ms_arena *a,
                             ms_requirement *out, bool *valid) {
    (void)node;
    raw_requirement raw;
    ms_rc rc = raw_requirement_from_json(r, j, &raw);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    *valid = false;
    bool in_op = ms_slice_eq(raw.op, "In"), not_in = ms_slice_eq(raw.op, "NotIn");
    if ((in_op || not_in) && raw.n == 1) {
        out->op = in_op ? MS_OP_IN : MS_OP_NOT_IN;
        out->key = ms_intern(in, raw.key.s, raw.key.n);
        out->number = ms_slice_eq(raw.key, "metadata.name");
        if (out->key == MS_STR_NONE || !ms_requirement_intern_values(in, a, raw.vals, 1, out))
            rc = ms_json_nomem(r);
        *valid = true;
    }
    free(raw.vals);
    return rc;
}

static ms_rc term_from_json(ms_json_reader *r, const cJSON *j, ms_interner *in, ms_arena *a,
                            ms_node_selector_term *out) {
    memset(out, 0, sizeof *out);
    if (!j || cJSON_IsNull(j)) return MS_OK;   /* empty term: matches nothing */
    ms_rc rc = expect_object(r, j, "nodeSelectorTerm");
    const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(j, "matchExpressions");
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(j, "matchFields");
    int nexpr = 0, nfields = 0;
    if (rc != MS_OK || (rc = json_list(r, "matchExpressions", exprs, &nexpr)) != MS_OK ||
        (rc = json_list(r, "matchFields", fields, &nfields)) != MS_OK || nexpr + nfields == 0)
        return rc;
    ms_requirement *expr = nexpr ? MS_ARENA_NEW(a, ms_requirement, nexpr) : NULL;
    ms_requirement *fld = nfields ? MS_ARENA_NEW(a, ms_requirement, nfields) : NULL;
    if ((nexpr && !expr) || (nfields && !fld)) return ms_json_nomem(r);
    bool valid = true;
    if (!nexpr) exprs = NULL;
    if (!nfields) fields = NULL;
    if ((rc = each_item(r, "matchExpressions", exprs, expression_from_json, true, in, a, expr, &valid)) != MS_OK ||
        (rc = each_item(r, "matchFields", fields, field_from_json, true, in, a, fld, &valid)) != MS_OK)
        return rc;
    out->invalid = !valid;
    out->nexpr = (uint32_t)nexpr;
    out->expr = expr;
    out->nfields = (uint32_t)nfields;
    out->fields = fld;
    return MS_OK;
}

ms_rc ms_node_selector_term_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                      ms_node_selector_term *out, const char *field,
                                      ms_error *err) {
    ms_json_reader r;
    reader_at(&r, field, err);
    return term_from_json(&r, j, in, a, out);
}

ms_rc ms_node_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                 ms_node_selector *out, const char *field, ms_error *err) {
    memset(out, 0, sizeof *out);
    if (!j || cJSON_IsNull(j)) return MS_OK;
    ms_json_reader r;
    reader_at(&r, field, err);
    ms_rc rc = expect_object(&r, j, "nodeSelector");
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(j, "nodeSelectorTerms");
    int n = 0;
    if (rc != MS_OK || (rc = json_list(&r, "nodeSelectorTerms", terms, &n)) != MS_OK || n == 0) return rc;
    ms_node_selector_term *t = MS_ARENA_NEW(a, ms_node_selector_term, n);
    if (!t) return ms_json_nomem(&r);
    size_t saved = ms_json_push(&r, "nodeSelectorTerms");
    size_t i = 0;
    for (const cJSON *e = terms->child; e; e = e->next, i++) {
        size_t at = ms_json_push_index(&r, i);
        if ((rc = term_from_json(&r, e, in, a, &t[i])) != MS_OK) return rc;
        ms_json_pop(&r, at);
    }
    ms_json_pop(&r, saved);
    out->n = (uint32_t)n;
    out->terms = t;
    return MS_OK;
}
