/* Services and ReplicationControllers (spec.selector: a map), ReplicaSets
 * and StatefulSets (spec.selector: a metav1.LabelSelector) from JSON: the
 * selector and the metadata, what the default topology spreading reads. */
#include <cjson/cJSON.h>

#include "codec/decode_internal.h"
#include "codec/decode_workload.h"

static ms_rc dec_spec(ms_dec *x, const ms_obj *o, ms_workload *w) {
    ms_obj spec;
    ms_rc rc = ms_dec_object(x, o, "spec", &spec);
    if (rc != MS_OK) return rc;
    size_t saved = ms_json_push(&x->r, "spec");
    if (w->kind == MS_WK_SERVICE || w->kind == MS_WK_REPLICATION_CONTROLLER)
        rc = ms_dec_labels(x, &spec, "selector", &w->match);
    else
        rc = ms_dec_label_selector(x, &spec, "selector", &w->selector);
    if (rc != MS_OK) return rc;
    ms_json_pop(&x->r, saved);
    return MS_OK;
}

ms_rc ms_workload_decode(const ms_decoder *d, ms_workload_kind kind, const cJSON *obj, ms_workload **out,
                         ms_error *err) {
    *out = NULL;
    const char *kind_name = ms_workload_kind_name(kind);
    if ((unsigned)kind >= MS_WK_COUNT) return ms_error_set(err, MS_EINVAL, "unknown kind %d", (int)kind);
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "%s: expected an object, got %s", kind_name, ms_json_type_name(obj));
    ms_workload *w = ms_workload_alloc(kind);
    if (!w) return ms_error_set(err, MS_ENOMEM, "%s: out of memory", kind_name);
    ms_dec x;
    ms_dec_init(&x, d, &w->arena, err, kind_name);
    ms_obj o;
    ms_obj_scan(&o, obj);
    ms_rc rc = ms_dec_meta(&x, &o, true, &w->meta);
    if (rc == MS_OK) rc = dec_spec(&x, &o, w);
    if (rc == MS_OK) rc = ms_dec_raw(&x, obj, &w->raw, &w->raw_len);
    if (rc != MS_OK) {
        ms_workload_unref(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}
