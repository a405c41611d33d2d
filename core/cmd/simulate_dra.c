/* simulate's resource.k8s.io objects: kept as read, fed before the first cycle. */
#include "cmd/simulate_dra.h"

#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "scheduler/dra_events.h"

void ms_sim_dra_free(ms_sim_dra *v) {
    for (uint32_t i = 0; i < v->n; i++) ms_dra_unref(v->objs[i]);
    free(v->objs);
    memset(v, 0, sizeof *v);
}

ms_rc ms_sim_dra_keep(ms_sim_dra *v, const ms_decoder *d, ms_dra_kind kind, const cJSON *obj, ms_error *err) {
    ms_dra_object *o;
    ms_rc rc = ms_dra_decode(d, kind, obj, &o, err);
    if (rc != MS_OK) return rc;
    if (!ms_array_grow((void **)&v->objs, &v->cap, v->n + 1, sizeof *v->objs)) {
        ms_dra_unref(o);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    v->objs[v->n++] = o;
    return MS_OK;
}

ms_rc ms_sim_dra_feed(const ms_sim_dra *v, ms_scheduler *sched, ms_error *err) {
    /* The files are the whole cluster: a claim they lack does not exist. */
    ms_scheduler_dra_provided(sched);
    for (uint32_t i = 0; i < v->n; i++)
        if (ms_scheduler_dra_set(sched, v->objs[i]) != MS_OK) return ms_error_set(err, MS_ENOMEM, "out of memory");
    return MS_OK;
}
