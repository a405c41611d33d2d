/* Namespace decoding: only metadata matters to the scheduler (namespaceSelector
 * reads the labels). */
#include <cjson/cJSON.h>

#include "codec/decode_internal.h"
#include "moonsched/namespaces.h"

ms_rc ms_namespace_decode(const ms_decoder *d, const cJSON *obj, ms_namespace **out,
                          ms_error *err) {
    *out = NULL;
    if (!cJSON_IsObject(obj))
        return ms_error_set(err, MS_EINVAL, "Namespace: expected an object, got %s",
                            ms_json_type_name(obj));
    ms_namespace *ns = ms_namespace_alloc();
    if (!ns) return ms_error_set(err, MS_ENOMEM, "Namespace: out of memory");
    ms_dec x;
    ms_dec_init(&x, d, &ns->arena, err, "Namespace");
    ms_obj o;
    ms_obj_scan(&o, obj);
    ms_rc rc = ms_dec_meta(&x, &o, false, &ns->meta);
    if (rc == MS_OK) rc = ms_dec_raw(&x, obj, &ns->raw, &ns->raw_len);
    if (rc != MS_OK) {
        ms_namespace_unref(ns);
        return rc;
    }
    *out = ns;
    return MS_OK;
}
