/* PodDisruptionBudget decoding (policy/v1 and policy/v1beta1 share the
 * shape): metadata, spec.selector, spec.minAvailable / maxUnavailable,
 * status counters and disruptedPods. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "codec/decode_internal.h"
#include "moonsched/pdb.h"

static const char *const api_versions[] = {"policy/v1", "policy/v1beta1", NULL};

static ms_rc dec_api_version(ms_dec *x, const ms_obj *o, ms_pdb *p) {
    const char *v;
    ms_rc rc = ms_dec_string(x, o, "apiVersion", &v);
    if (rc != MS_OK) return rc;
    if (!v || !*v || strcmp(v, "policy/v1") == 0) p->api_version = MS_PDB_POLICY_V1;
    else if (strcmp(v, "policy/v1beta1") == 0) p->api_version = MS_PDB_POLICY_V1BETA1;
    else return ms_json_unsupported(&x->r, "apiVersion", v, api_versions);
    return MS_OK;
}

/* An integer, or a string of digits followed by '%' (what the API server's
 * validation lets through for a PDB). */
static ms_rc dec_int_or_percent(ms_dec *x, const ms_obj *spec, const char *key,
                                ms_int_or_percent *out) {
    const cJSON *j = ms_obj_get(spec, key);
    *out = (ms_int_or_percent){0};
    if (!j || cJSON_IsNull(j)) return MS_OK;
    int64_t v;
    if (cJSON_IsNumber(j)) {
        if (!ms_json_integer(j, INT32_MIN, INT32_MAX, &v))
            return ms_json_int(&x->r, key, j, INT32_MIN, INT32_MAX, &v);
        *out = (ms_int_or_percent){.set = true, .percent = false, .value = (int32_t)v};
        return MS_OK;
    }
    if (!cJSON_IsString(j))
        return ms_json_fail(&x->r, key, "expected integer or string, got %s", ms_json_type_name(j));
    const char *s = j->valuestring;
    size_t len = strlen(s);
    bool ok = len >= 2 && len <= 11 && s[len - 1] == '%';
    v = 0;
    for (size_t i = 0; ok && i + 1 < len; i++) {
        if (s[i] < '0' || s[i] > '9') ok = false;
        else v = v * 10 + (s[i] - '0');
    }
    if (!ok || v > INT32_MAX)
        return ms_json_invalid(&x->r, key, s, "a valid percent string must be a numeric string followed by an "
                               "ending '%%'");
    *out = (ms_int_or_percent){.set = true, .percent = true, .value = (int32_t)v};
    return MS_OK;
}

static ms_rc dec_spec(ms_dec *x, const ms_obj *o, ms_pdb *p) {
    ms_obj spec;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    const cJSON *sel = ms_obj_get(&spec, "selector");
    size_t at = ms_json_push(&x->r, "selector");
    rc = ms_label_selector_from_json(sel, x->d->in, x->a, &p->selector, x->r.path, x->r.err);
    if (rc != MS_OK) return ms_dec_wrap(x, rc);
    ms_json_pop(&x->r, at);
    p->selector_empty = cJSON_IsObject(sel) && !p->selector.nothing && p->selector.n == 0;
    if ((rc = dec_int_or_percent(x, &spec, "minAvailable", &p->min_available)) != MS_OK ||
        (rc = dec_int_or_percent(x, &spec, "maxUnavailable", &p->max_unavailable)) != MS_OK)
        return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static int cmp_str_id(const void *a, const void *b) {
    ms_str x = *(const ms_str *)a, y = *(const ms_str *)b;
    return x < y ? -1 : x > y;
}

static ms_rc dec_disrupted(ms_dec *x, const ms_obj *status, ms_pdb *p) {
    const cJSON *map = ms_obj_get(status, "disruptedPods");
    if (!map || cJSON_IsNull(map)) return MS_OK;
    if (!cJSON_IsObject(map))
        return ms_json_type_error(&x->r, "disruptedPods", map, MS_JSON_OBJECT);
    int count = cJSON_GetArraySize(map);
    if (count == 0) return MS_OK;
    ms_str *names = MS_ARENA_NEW(x->a, ms_str, count);
    if (!names) return ms_json_nomem(&x->r);
    uint32_t n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, map) {
        /* The value is the time the eviction was admitted; only the key
         * matters to the scheduler. */
        if (!cJSON_IsString(c) && !cJSON_IsNull(c))
            return ms_json_fail(&x->r, "disruptedPods", "%s: expected string, got %s", c->string,
                               ms_json_type_name(c));
        ms_str id = ms_intern_cstr(x->d->in, c->string);
        if (id == MS_STR_NONE) return ms_json_nomem(&x->r);
        names[n++] = id;
    }
    qsort(names, n, sizeof *names, cmp_str_id);
    p->disrupted_pods = names;
    p->ndisrupted = n;
    return MS_OK;
}

static ms_rc dec_count(ms_dec *x, const ms_obj *status, const char *key, int32_t *out) {
    int64_t v;
    ms_rc rc = ms_dec_int(x, status, key, INT32_MIN, INT32_MAX, &v, NULL);
    *out = (int32_t)v;
    return rc;
}

static ms_rc dec_status(ms_dec *x, const ms_obj *o, ms_pdb *p) {
    ms_obj status;
    ms_rc rc = ms_dec_object(x, o, "status", &status);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "status");
    if ((rc = dec_count(x, &status, "disruptionsAllowed", &p->disruptions_allowed)) != MS_OK ||
        (rc = dec_count(x, &status, "currentHealthy", &p->current_healthy)) != MS_OK ||
        (rc = dec_count(x, &status, "desiredHealthy", &p->desired_healthy)) != MS_OK ||
        (rc = dec_count(x, &status, "expectedPods", &p->expected_pods)) != MS_OK ||
        (rc = dec_disrupted(x, &status, p)) != MS_OK)
        return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

ms_rc ms_pdb_decode(const ms_decoder *d, const cJSON *obj, ms_pdb **out, ms_error *err) {
    *out = NULL;
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "PodDisruptionBudget: expected an object, got %s",
                            ms_json_type_name(obj));
    ms_pdb *p = ms_pdb_alloc();
    if (!p) return ms_error_set(err, MS_ENOMEM, "PodDisruptionBudget: out of memory");
    ms_dec x;
    ms_dec_init(&x, d, &p->arena, err, "PodDisruptionBudget");
    ms_obj o;
    ms_obj_scan(&o, obj);
    ms_rc rc;
    if ((rc = ms_dec_meta(&x, &o, true, &p->meta)) != MS_OK ||
        (rc = dec_api_version(&x, &o, p)) != MS_OK || (rc = dec_spec(&x, &o, p)) != MS_OK ||
        (rc = dec_status(&x, &o, p)) != MS_OK || (rc = ms_dec_raw(&x, obj, &p->raw, &p->raw_len)) != MS_OK) {
        ms_pdb_unref(p);
        return rc;
    }
    *out = p;
    return MS_OK;
}
