/* Label and node selectors in their JSON forms (metav1.LabelSelector,
 * v1.NodeSelector, v1.NodeSelectorTerm), compiled as upstream converts
 * them: a selector that fails to convert selects nothing. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector_build.h"
#include "moonsched/selector.h"

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
static ms_rc json_string(const cJSON *j, ms_slice *out, const char *path, ms_error *err) {
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
    ms_slice key;
    ms_slice op;
    uint32_t n;
    ms_slice *vals;
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
        ms_build_result b = ms_requirement_build(in, a, raw.key, op, raw.vals, raw.n, out, why, sizeof why);
        if (b == MS_BUILD_NOMEM) rc = nomem(err);
        *valid = b == MS_BUILD_OK;
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
            ms_slice v;
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
            ms_slice k = {l->string ? l->string : "", l->string ? strlen(l->string) : 0}, v;
            json_string(l, &v, "", err);   /* type checked above */
            ms_build_result b = ms_requirement_build(in, a, k, MS_OP_EQUALS, &v, 1, &reqs[n], why,
                                               sizeof why);
            if (b == MS_BUILD_NOMEM) return nomem(err);
            if (b == MS_BUILD_INVALID) valid = false;
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
    bool in_op = ms_slice_eq(raw.op, "In"), not_in = ms_slice_eq(raw.op, "NotIn");
    if ((in_op || not_in) && raw.n == 1) {
        out->op = in_op ? MS_OP_IN : MS_OP_NOT_IN;
        out->key = ms_intern(in, raw.key.s, raw.key.n);
        out->number = ms_slice_eq(raw.key, "metadata.name");
        if (out->key == MS_STR_NONE || !ms_requirement_intern_values(in, a, raw.vals, 1, out)) rc = nomem(err);
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
