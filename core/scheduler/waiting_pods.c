/* Pods that Permit parked (upstream's waitingPodsMap): their deadlines,
 * releases asked for by plugins or from outside, and rejection. */
#include "moonsched/scheduler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/scheduler_priv.h"
#include "framework/runners.h"
#include "backend/queue.h"
#include "backend/cache.h"

uint32_t ms_scheduler_waiting_count(const ms_scheduler *s) { return s->nwaiting; }

double ms_scheduler_next_permit_deadline(const ms_scheduler *s) {
    double next = 0;
    for (uint32_t i = 0; i < s->nwaiting; i++)
        if (next == 0 || s->waiting[i]->deadline < next) next = s->waiting[i]->deadline;
    return next;
}

bool ms_sched_park(ms_scheduler *s, ms_inflight *r, const ms_score_report *report, double deadline) {
    ms_score_report *copy = MS_ARENA_NEW(&r->arena, ms_score_report, 1);
    int64_t *scores = report->nplugins ? MS_ARENA_NEW(&r->arena, int64_t, report->nplugins) : NULL;
    if (!copy || (report->nplugins && !scores)) return false;
    if (!ms_array_grow((void **)&s->waiting, &s->waitcap, s->nwaiting + 1, sizeof *s->waiting))
        return false;
    *copy = *report;
    if (scores) memcpy(scores, report->scores, report->nplugins * sizeof *scores);
    copy->scores = scores;
    r->report = copy;
    r->waiting = true;
    r->deadline = deadline;
    s->waiting[s->nwaiting++] = r;
    return true;
}

/* Out of the waiting pods, its wait ending with `code`
 * (scheduler_permit_wait_duration_seconds). */
static void unpark(ms_scheduler *s, ms_inflight *r, ms_code code, double now) {
    if (s->metrics) ms_sched_metrics_permit_wait(s->metrics, code, now - r->parked_at);
    for (uint32_t i = 0; i < s->nwaiting; i++)
        if (s->waiting[i] == r) {
            s->waiting[i] = s->waiting[--s->nwaiting];
            break;
        }
    r->waiting = false;
}

void ms_sched_reject_waiting(ms_scheduler *s, ms_inflight *r, const char *message, bool gone,
                             double now) {
    unpark(s, r, MS_UNSCHEDULABLE, now);
    ms_explain_ring_complete(&s->explain, r->cycle.cycle, r->qp->pod->meta.uid_hash, MS_EXPLAIN_PERMIT_REJECTED,
                             message);
    ms_map_del(&s->binding, r->qp->pod->meta.uid_hash);
    ms_framework_run_unreserve(&s->profiles[r->profile], &r->cycle, r->node);
    ms_cache_forget_pod(s->cache, r->assumed);
    /* What the pod held is free again (upstream treats forgetting it as an
     * AssignedPodDelete); the pod itself is not in the queue yet. */
    ms_queue_move_on_event(s->queue, MS_EV_ASSIGNED_POD_DELETE | MS_EV_FORGET, now);
    ms_queued_pod *qp = r->qp;
    if (gone || r->deleted) {
        ms_queue_done(s->queue, qp);
    } else {
        if (s->reporter.unschedulable)
            s->reporter.unschedulable(s->reporter.ctx, qp->pod, message, qp->attempts);
        qp->unschedulable_plugins = 0;
        qp->interest = MS_EV_ALL;
        ms_queue_add_unschedulable(s->queue, qp, r->cycle.cycle, now);
    }
    ms_sched_record_release(s, r);
}

/* Waits that reached their deadline: let through (simulate) or rejected
 * with upstream's timeout message. */
void ms_sched_resolve_waits(ms_scheduler *s, double now) {
    for (uint32_t i = 0; i < s->nwaiting;) {
        ms_inflight *r = s->waiting[i];
        if (r->deadline > now) {
            i++;
            continue;
        }
        if (s->permit_timeout_allows) {
            unpark(s, r, MS_SUCCESS, now);
            ms_sched_start_binding(s, r, r->report, now);
        } else {
            ms_sched_reject_waiting(s, r, "rejected due to timeout after waiting at Permit", false,
                                    now);
        }
        i = 0;   /* the list changed under us */
    }
}

/* ---- Permit releases ------------------------------------------------- */

static ms_inflight *waiting_by_uid(const ms_scheduler *s, const char *uid) {
    if (!uid || !*uid) return NULL;
    ms_inflight *r = ms_map_get(&s->binding, ms_hash_bytes(uid, strlen(uid)));
    return r && r->waiting ? r : NULL;
}

static void release(ms_scheduler *s, ms_inflight *r, bool allow, const char *reason, double now) {
    if (allow) {
        unpark(s, r, MS_SUCCESS, now);
        ms_sched_start_binding(s, r, r->report, now);
    } else {
        ms_sched_reject_waiting(s, r, reason && *reason ? reason : "rejected while waiting at Permit",
                                false, now);
    }
}

bool ms_scheduler_permit_allow(ms_scheduler *s, const char *uid, double now) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    release(s, r, true, NULL, now);
    ms_sched_flush_permits(s, now);
    return true;
}

bool ms_scheduler_permit_deny(ms_scheduler *s, const char *uid, const char *reason, double now) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    release(s, r, false, reason, now);
    ms_sched_flush_permits(s, now);
    return true;
}

bool ms_scheduler_permit_later(ms_scheduler *s, const char *uid, bool allow, const char *reason) {
    ms_inflight *r = waiting_by_uid(s, uid);
    if (!r) return false;
    if (!ms_array_grow((void **)&s->later, &s->latercap, s->nlater + 1, sizeof *s->later))
        return false;
    ms_permit_request *q = &s->later[s->nlater++];
    q->uid_hash = r->qp->pod->meta.uid_hash;
    q->allow = allow;
    snprintf(q->reason, sizeof q->reason, "%s", reason ? reason : "");
    return true;
}

void ms_sched_flush_permits(ms_scheduler *s, double now) {
    /* A release runs plugins (Unreserve of a denied pod) that may ask for
     * more: take the list, apply it, and look again. */
    while (s->nlater > 0) {
        ms_permit_request q = s->later[0];
        memmove(s->later, s->later + 1, (s->nlater - 1) * sizeof *s->later);
        s->nlater--;
        ms_inflight *r = ms_map_get(&s->binding, q.uid_hash);
        if (r && r->waiting) release(s, r, q.allow, q.reason, now);
    }
}
