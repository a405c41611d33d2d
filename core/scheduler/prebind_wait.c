/* Binding cycles waiting in PreBind (VolumeBinding until the PV controller
 * or a provisioner has bound the pod's claims; upstream blocks a binding
 * goroutine in BindPodVolumes for that). Here the record stays in
 * s->binding and s->prebinding, and the scheduler thread goes on: the
 * waiting plugin is asked again after each cluster event it registered
 * for, and for its final word at its deadline. */
#include <stdio.h>

#include "backend/queue.h"
#include "base/array.h"
#include "framework/volume_binder.h"
#include "framework/runners.h"
#include "scheduler/scheduler_priv.h"

bool ms_sched_prebind_wait(ms_scheduler *s, ms_inflight *r, int16_t plugin, double timeout, double now) {
    if (!ms_array_grow((void **)&s->prebinding, &s->prebindcap, s->nprebinding + 1, sizeof *s->prebinding))
        return false;
    r->prebinding = true;
    r->prebind_plugin = plugin;
    r->prebind_deadline = now + timeout;
    s->prebinding[s->nprebinding++] = r;
    return true;
}

void ms_sched_prebind_unlist(ms_scheduler *s, ms_inflight *r) {
    for (uint32_t i = 0; i < s->nprebinding; i++)
        if (s->prebinding[i] == r) {
            s->prebinding[i] = s->prebinding[--s->nprebinding];
            break;
        }
    r->prebinding = false;
}

void ms_sched_prebind_fail(ms_scheduler *s, ms_inflight *r, const char *message, bool gone, double now) {
    ms_sched_prebind_unlist(s, r);
    ms_map_del(&s->binding, r->qp->pod->meta.uid_hash);
    const ms_framework *fw = &s->profiles[r->profile];
    if (s->handle.volume_binder && s->handle.volume_binder->cancel)
        s->handle.volume_binder->cancel(s->handle.volume_binder->ctx, r->qp->pod);
    char msg[768];
    snprintf(msg, sizeof msg, "running PreBind plugin \"%s\": %s", ms_framework_plugin_name(fw, r->prebind_plugin),
             message);
    ms_sched_binding_failed(s, r, msg, gone, now);
}

void ms_sched_prebind_write_failed(ms_scheduler *s, const ms_pod *pod, const char *message, double now) {
    ms_inflight *r = ms_sched_binding_record(s, pod->meta.uid_hash);
    if (!r || !r->prebinding) return;
    ms_sched_prebind_fail(s, r, message, false, now);
    ms_sched_flush_permits(s, now);
}

/* Backwards: a record that finishes swaps the last one into its place,
 * which was already asked. Records that start waiting meanwhile are
 * appended and wait for the next event. */
void ms_sched_prebind_events(ms_scheduler *s, ms_event_mask ev, double now) {
    for (uint32_t i = s->nprebinding; i-- > 0;) {
        if (i >= s->nprebinding) continue;
        ms_inflight *r = s->prebinding[i];
        const ms_framework *fw = &s->profiles[r->profile];
        /* its events, and deletions: a claim or volume gone ends the wait
         * (upstream polls every second) */
        ms_event_mask interest =
            r->prebind_plugin >= 0 && r->prebind_plugin < 64 ? ms_framework_interest(fw, 1ull << r->prebind_plugin) : 0;
        if (interest && !((interest | MS_EV_STORAGE_DELETE) & ev)) continue;
        ms_sched_continue_binding(s, r, 0, now);
    }
    ms_sched_flush_permits(s, now);
}

void ms_sched_prebind_deadlines(ms_scheduler *s, double now) {
    for (uint32_t i = s->nprebinding; i-- > 0;) {
        if (i >= s->nprebinding) continue;
        ms_inflight *r = s->prebinding[i];
        if (r->prebind_deadline <= now) ms_sched_continue_binding(s, r, -1, now);
    }
}
