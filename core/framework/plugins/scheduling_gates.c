/* SchedulingGates (upstream's PreEnqueue plugin, GA in 1.30): a pod whose
 * spec.schedulingGates is not empty stays out of activeQ. It waits among
 * the gated pods until an update of the pod itself removes the last gate;
 * no cluster event can lift a gate. */
#include <stdlib.h>

#include "base/buf.h"
#include "builtin.h"

typedef struct scheduling_gates {
    const ms_interner *in;
    ms_buf reason;                 /* the last refusal's reason */
} scheduling_gates;

static ms_rc scheduling_gates_create(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    scheduling_gates *p = calloc(1, sizeof *p);
    if (!p) return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->in = h ? h->in : NULL;
    *self = p;
    return MS_OK;
}

static void scheduling_gates_destroy(void *self) {
    scheduling_gates *p = self;
    if (!p) return;
    ms_buf_free(&p->reason);
    free(p);
}

/* upstream: "waiting for scheduling gates: [a b]" (Go's %v of the names).
 * The reason stays valid until the next call (scheduler thread only). */
static bool scheduling_gates_pre_enqueue(void *self, const ms_pod *pod, const char **reason) {
    scheduling_gates *p = self;
    if (pod->nscheduling_gates == 0) return true;
    ms_buf_reset(&p->reason);
    ms_buf_puts(&p->reason, "waiting for scheduling gates: [");
    for (uint32_t i = 0; i < pod->nscheduling_gates; i++)
        ms_buf_printf(&p->reason, "%s%s", i ? " " : "",
                      p->in ? ms_str_get(p->in, pod->scheduling_gates[i]) : "");
    ms_buf_putc(&p->reason, ']');
    *reason = p->reason.data ? p->reason.data : "waiting for scheduling gates";
    return false;
}

const ms_plugin_ops ms_plugin_scheduling_gates = {
    .name = "SchedulingGates",
    /* Only the pod's own update (which the queue handles itself) removes a
     * gate: no cluster event is worth a retry. */
    .events = MS_EV_UNSCHEDULED_POD_UPDATE,
    .create = scheduling_gates_create,
    .destroy = scheduling_gates_destroy,
    .pre_enqueue = scheduling_gates_pre_enqueue,
};
