/* DefaultBinder: hands the binding to the scheduler's binder (the API's
 * binding subresource, or the in-memory binder of simulate). */
#include <stdlib.h>

#include "builtin.h"

typedef struct default_binder {
    const ms_handle *h;
} default_binder;

static ms_rc default_binder_create(const cJSON *args, const ms_handle *h, void **self,
                                   ms_error *err) {
    (void)args;
    default_binder *p = malloc(sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->h = h;
    *self = p;
    return MS_OK;
}

static void default_binder_destroy(void *self) { free(self); }

static ms_code default_binder_bind(void *self, const ms_pod *pod, ms_str node, ms_status *st) {
    const default_binder *p = self;
    if (!p->h || !p->h->bind) return ms_status_set(st, MS_ERROR, "no binder configured");
    ms_rc rc = p->h->bind(p->h->bind_ctx, pod, node);
    if (rc != MS_OK) return ms_status_set(st, MS_ERROR, ms_rc_str(rc));
    return MS_SUCCESS;
}

const ms_plugin_ops ms_plugin_default_binder = {
    .name = "DefaultBinder",
    .create = default_binder_create,
    .destroy = default_binder_destroy,
    .bind = default_binder_bind,
};
