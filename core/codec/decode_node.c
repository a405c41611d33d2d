/* Node decoding: labels, taints (with their filter reason built once and
 * timeAdded, which the taint eviction controller counts from),
 * capacity and allocatable, images, conditions. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "codec/decode_internal.h"
#include "moonsched/decode.h"
#include "moonsched/node.h"

static ms_rc dec_taint(ms_dec *x, const ms_obj *to, void *elem, void *ctx) {
    ms_node *n = ctx;
    ms_taint *o = elem;
    const char *key, *value, *effect;
    ms_rc rc;
    if ((rc = ms_dec_string(x, to, "key", &key)) != MS_OK ||
        (rc = ms_dec_string(x, to, "value", &value)) != MS_OK ||
        (rc = ms_dec_string(x, to, "effect", &effect)) != MS_OK ||
        (rc = ms_dec_time(x, to, "timeAdded", &o->time_added)) != MS_OK)
        return rc;
    if (!key || !*key) return ms_json_fail(&x->r, "key", "Required value");
    if (!effect || !*effect) return ms_json_fail(&x->r, "effect", "Required value");
    if (strcmp(effect, "NoSchedule") == 0) o->effect = MS_EFFECT_NO_SCHEDULE;
    else if (strcmp(effect, "PreferNoSchedule") == 0) o->effect = MS_EFFECT_PREFER_NO_SCHEDULE;
    else if (strcmp(effect, "NoExecute") == 0) o->effect = MS_EFFECT_NO_EXECUTE;
    else return ms_json_unsupported(&x->r, "effect", effect, ms_taint_effects);
    if (!value) value = "";
    o->key = ms_intern_cstr(x->d->in, key);
    o->value = *value ? ms_intern_cstr(x->d->in, value) : MS_STR_NONE;
    if (o->key == MS_STR_NONE || (*value && o->value == MS_STR_NONE)) return ms_json_nomem(&x->r);
    /* upstream TaintToleration's reason, built once per node and interned:
     * nodes with the same taint then share one pointer, which is what the
     * FitError histogram counts by first. */
    size_t len = strlen(key) + strlen(value) + 40;
    char stack[512];
    char *reason = len <= sizeof stack ? stack : ms_arena_alloc(&n->arena, len);
    if (!reason) return ms_json_nomem(&x->r);
    int rlen = snprintf(reason, len, "node(s) had untolerated taint {%s: %s}", key, value);
    ms_str rid = rlen < 0 ? MS_STR_NONE : ms_intern(x->d->in, reason, (size_t)rlen);
    if (rid == MS_STR_NONE) return ms_json_nomem(&x->r);
    o->reason = ms_str_get(x->d->in, rid);
    return MS_OK;
}

static ms_rc dec_taints(ms_dec *x, const ms_obj *spec, ms_node *n) {
    void *taints;
    ms_rc rc = ms_dec_objects(x, spec, "taints", &n->arena, sizeof *n->taints, &taints, &n->ntaints,
                              dec_taint, n);
    n->taints = taints;
    return rc;
}

static ms_rc dec_image(ms_dec *x, const ms_obj *io, void *elem, void *ctx) {
    ms_node *n = ctx;
    ms_container_image *o = elem;
    const cJSON *names;
    ms_rc rc;
    if ((rc = ms_dec_int(x, io, "sizeBytes", INT64_MIN, INT64_MAX, &o->size_bytes, NULL)) != MS_OK ||
        (rc = ms_dec_array(x, io, "names", &names)) != MS_OK)
        return rc;
    int nn = names ? cJSON_GetArraySize(names) : 0;
    if (!nn) return MS_OK;
    if (!(o->names = MS_ARENA_NEW(&n->arena, ms_str, nn))) return ms_json_nomem(&x->r);
    size_t saved = ms_json_push(&x->r, "names");
    const cJSON *nm;
    cJSON_ArrayForEach(nm, names) {
        if (!cJSON_IsString(nm)) {
            ms_json_push_index(&x->r, o->nnames);
            return ms_json_type_error(&x->r, NULL, nm, MS_JSON_STRING);
        }
        if ((o->names[o->nnames++] = ms_dec_image_name(x, nm->valuestring)) == MS_STR_NONE)
            return ms_json_nomem(&x->r);
    }
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

static ms_rc dec_images(ms_dec *x, const ms_obj *status, ms_node *n) {
    void *images;
    ms_rc rc = ms_dec_objects(x, status, "images", &n->arena, sizeof *n->images, &images, &n->nimages,
                              dec_image, n);
    n->images = images;
    return rc;
}

static ms_rc dec_condition(ms_dec *x, const ms_obj *co, void *elem, void *ctx) {
    (void)ctx;
    ms_node_condition *o = elem;
    const char *st;
    ms_rc rc;
    if ((rc = ms_dec_str_id(x, co, "type", true, &o->type)) != MS_OK ||
        (rc = ms_dec_string(x, co, "status", &st)) != MS_OK)
        return rc;
    o->status = MS_COND_UNKNOWN;
    if (st && strcmp(st, "True") == 0) o->status = MS_COND_TRUE;
    else if (st && strcmp(st, "False") == 0) o->status = MS_COND_FALSE;
    return MS_OK;
}

static ms_rc dec_conditions(ms_dec *x, const ms_obj *status, ms_node *n) {
    void *conditions;
    ms_rc rc = ms_dec_objects(x, status, "conditions", &n->arena, sizeof *n->conditions, &conditions,
                              &n->nconditions, dec_condition, NULL);
    n->conditions = conditions;
    return rc;
}

static ms_rc dec_status(ms_dec *x, const ms_obj *status, ms_node *n) {
    ms_rc rc;
    ms_arena scratch;
    ms_arena_init(&scratch, 512);
    ms_rlist cap = {0}, alloc = {0};
    const cJSON *aj = ms_obj_get(status, "allocatable");
    size_t saved = ms_json_push(&x->r, "status");
    if ((rc = ms_dec_resource_list(x, status, "capacity", &scratch, &cap)) == MS_OK &&
        (rc = ms_dec_resource_list(x, status, "allocatable", &scratch, &alloc)) == MS_OK &&
        (rc = dec_images(x, status, n)) == MS_OK && (rc = dec_conditions(x, status, n)) == MS_OK) {
        /* API defaulting: no allocatable means all of capacity. */
        const ms_rlist *a = aj && !cJSON_IsNull(aj) ? &alloc : &cap;
        if (ms_rlist_export(&cap, &n->arena, &n->capacity) != 0 ||
            ms_rlist_export(a, &n->arena, &n->allocatable) != 0)
            rc = ms_json_nomem(&x->r);
    }
    ms_arena_free(&scratch);
    if (rc == MS_OK) ms_json_pop(&x->r, saved);
    return rc;
}

ms_rc ms_node_decode(const ms_decoder *d, const cJSON *obj, ms_node **out, ms_error *err) {
    *out = NULL;
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "Node: expected an object, got %s", ms_json_type_name(obj));
    ms_node *n = ms_node_alloc();
    if (!n) return ms_error_set(err, MS_ENOMEM, "Node: out of memory");
    ms_dec x;
    ms_dec_init(&x, d, &n->arena, err, "Node");
    ms_obj o, spec, status;
    ms_rc rc;
    ms_obj_scan(&o, obj);
    if ((rc = ms_dec_meta(&x, &o, false, &n->meta)) == MS_OK &&
        (rc = ms_dec_object(&x, &o, "spec", &spec)) == MS_OK &&
        (rc = ms_dec_object(&x, &o, "status", &status)) == MS_OK) {
        size_t saved = ms_json_push(&x.r, "spec");
        if ((rc = ms_dec_bool(&x, &spec, "unschedulable", &n->unschedulable, NULL)) == MS_OK &&
            (rc = dec_taints(&x, &spec, n)) == MS_OK)
            ms_json_pop(&x.r, saved);
        if (rc == MS_OK) rc = dec_status(&x, &status, n);
        if (rc == MS_OK) rc = ms_dec_raw(&x, obj, &n->raw, &n->raw_len);
    }
    if (rc != MS_OK) {
        ms_node_unref(n);
        return rc;
    }
    *out = n;
    return MS_OK;
}
