/* The args the descheduler's strategies share (namespaces, labelSelector,
 * string lists, unsigned integers) and upstream's aggregate of validation
 * errors. */
#include "descheduler/args.h"

#include <stdarg.h>
#include <string.h>

void ms_desched_args_invalid(ms_desched_args_ctx *c, const char *fmt, ...) {
    if (c->nerrs++) ms_buf_puts(&c->errs, ", ");
    va_list ap;
    va_start(ap, fmt);
    ms_buf_vprintf(&c->errs, fmt, ap);
    va_end(ap);
}

ms_rc ms_desched_args_finish(ms_desched_args_ctx *c, const char *prefix) {
    ms_rc rc = MS_OK;
    if (c->errs.failed) rc = ms_error_set(c->r->err, MS_ENOMEM, "out of memory");
    else if (c->nerrs == 1)
        rc = ms_error_set(c->r->err, MS_EINVAL, "%s%s", prefix, c->errs.data);
    else if (c->nerrs > 1)
        rc = ms_error_set(c->r->err, MS_EINVAL, "%s[%s]", prefix, c->errs.data);
    ms_buf_free(&c->errs);
    c->nerrs = 0;
    return rc;
}

ms_rc ms_desched_args_strs(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                           ms_desched_strs *out) {
    const cJSON *arr = ms_json_get(obj, key);
    out->n = 0;
    out->v = NULL;
    ms_rc rc = ms_json_expect(c->r, key, arr, MS_JSON_ARRAY);
    if (rc != MS_OK || !arr) return rc;
    int n = cJSON_GetArraySize(arr);
    if (!n) return MS_OK;
    if (!(out->v = MS_ARENA_NEW(c->a, ms_str, n))) return ms_json_nomem(c->r);
    size_t saved = ms_json_push(c->r, key);
    const cJSON *it;
    size_t i = 0;
    cJSON_ArrayForEach(it, arr) {
        const char *s = NULL;
        size_t s2 = ms_json_push_index(c->r, i++);
        if ((rc = ms_json_string(c->r, NULL, it, &s)) != MS_OK) return rc;
        if (!s) return ms_json_type_error(c->r, NULL, it, MS_JSON_STRING);
        if (!(out->v[out->n++] = ms_intern_cstr(c->in, s))) return ms_json_nomem(c->r);
        ms_json_pop(c->r, s2);
    }
    ms_json_pop(c->r, saved);
    return MS_OK;
}

bool ms_desched_strs_has(const ms_desched_strs *s, ms_str v) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == v) return true;
    return false;
}

ms_rc ms_desched_args_namespaces(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                                 ms_desched_pod_scope *out) {
    const cJSON *ns = ms_json_get(obj, key);
    ms_rc rc = ms_json_expect(c->r, key, ns, MS_JSON_OBJECT);
    if (rc != MS_OK || !ns) return rc;
    size_t saved = ms_json_push(c->r, key);
    if ((rc = ms_desched_args_strs(c, ns, "include", &out->include)) != MS_OK ||
        (rc = ms_desched_args_strs(c, ns, "exclude", &out->exclude)) != MS_OK)
        return rc;
    ms_json_pop(c->r, saved);
    if (out->include.n && out->exclude.n)
        ms_desched_args_invalid(c, "only one of Include/Exclude namespaces can be set");
    return MS_OK;
}

ms_rc ms_desched_args_selector(ms_desched_args_ctx *c, const cJSON *obj,
                               ms_desched_pod_scope *out) {
    const cJSON *sel = ms_json_get(obj, "labelSelector");
    if (!sel) return MS_OK;
    size_t saved = ms_json_push(c->r, "labelSelector");
    ms_rc rc = ms_label_selector_from_json(sel, c->in, c->a, &out->selector, c->r->path, c->r->err);
    ms_json_pop(c->r, saved);
    if (rc != MS_OK) return rc;
    out->has_selector = true;
    /* A selector that does not convert (In without values, a bad key)
     * compiles to "nothing": upstream refuses it at validation. */
    if (out->selector.nothing)
        ms_desched_args_invalid(c, "failed to get label selectors from strategy's params: "
                                   "invalid label selector");
    return MS_OK;
}

bool ms_desched_scope_matches(const ms_desched_pod_scope *s, const ms_pod *p,
                              const ms_interner *in) {
    if (s->include.n && !ms_desched_strs_has(&s->include, p->meta.namespace_)) return false;
    if (s->exclude.n && ms_desched_strs_has(&s->exclude, p->meta.namespace_)) return false;
    return !s->has_selector || ms_label_selector_matches(&s->selector, &p->meta.labels, in);
}

ms_rc ms_desched_args_uint(ms_desched_args_ctx *c, const cJSON *obj, const char *key,
                           bool *set, uint32_t *out) {
    const cJSON *j = ms_json_get(obj, key);
    int64_t v = 0;
    ms_rc rc = ms_json_int(c->r, key, j, 0, UINT32_MAX, &v);
    if (rc != MS_OK || !j) return rc;
    if (set) *set = true;
    *out = (uint32_t)v;
    return MS_OK;
}
