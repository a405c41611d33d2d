/* What `run` tells the API server about pods, through the poster: the
 * PodScheduled=False condition and a FailedScheduling Event for a pod that
 * does not fit, the SchedulingGated condition of a gated pod, Scheduled
 * and Preempted Events, preemption's deletions and nominations; and Events
 * about the scheduler itself.
 *
 * Aggregation, per pod: the condition is patched only when its message
 * changes; FailedScheduling is one Event per pod, as client-go's event
 * series makes it: posted at the first report, then updated (its series
 * count and last observed time, ms_event_recorder_build_series) at most
 * once per event_interval with the count of reports so far; a series not
 * observed for 6 minutes is finished (upstream's finishTime) and the next
 * report starts a new Event. The Event keeps its first note, as upstream's
 * series does; the condition carries the latest message. A global budget
 * (event_qps, burst 4x) caps every Event and update; one over it is
 * dropped and counted as suppressed. Scheduler thread only. */
#ifndef MOONSCHED_API_REPORTER_H
#define MOONSCHED_API_REPORTER_H

#include <stdint.h>

#include "moonsched/log.h"
#include "client/event_recorder.h"
#include "run/poster.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"

typedef struct ms_api_reporter ms_api_reporter;

typedef struct ms_api_reporter_options {
    const ms_interner *in;         /* resolves the pods' names */
    ms_poster *poster;             /* must outlive the reporter */
    ms_event_recorder *events;     /* builds the Events; must outlive it */
    const ms_logger *log;          /* NULL: ms_log_default */
    double event_interval;         /* seconds; 0: 30 */
    double event_qps;              /* 0: 50 */
    /* The server keeps pod disruption conditions (1.26+): a preemption
     * victim gets DisruptionTarget before its deletion. */
    bool disruption_conditions;
    double series_finish;          /* seconds unobserved that end a series; 0: 360 (upstream's) */
} ms_api_reporter_options;

/* NULL when out of memory. */
ms_api_reporter *ms_api_reporter_new(const ms_api_reporter_options *o);
void ms_api_reporter_free(ms_api_reporter *r);

/* A failed attempt: PodScheduled=False with reason Unschedulable, or
 * SchedulerError when the attempt ended in an error (upstream's
 * PodReasonSchedulerError), and the FailedScheduling Event series. */
void ms_api_reporter_unschedulable(ms_api_reporter *r, const ms_pod *pod, bool error, const char *message);
/* A binding cycle that failed (the pod is retried): the same event and
 * condition, with upstream's reason SchedulerError. */
void ms_api_reporter_binding_error(ms_api_reporter *r, const ms_pod *pod, const char *message);
/* A pod held back by its spec.schedulingGates: PodScheduled=False with
 * reason SchedulingGated and the API server's message, once (not when the
 * pod already carries it: a 1.30 server sets it on create). No Event: a
 * gated pod is not a failed attempt. reason: the plugin's, for the log. */
void ms_api_reporter_gated(ms_api_reporter *r, const ms_pod *pod, const char *reason);
/* The victim's Preempted Event, naming the preemptor and the node. */
void ms_api_reporter_preempted(ms_api_reporter *r, const ms_pod *victim, const ms_pod *preemptor,
                               const char *node);
/* A bind went through: the Scheduled Event; the pod's aggregation ends. */
void ms_api_reporter_bound(ms_api_reporter *r, const ms_pod *pod, const char *node);
/* Preemption's deletion of a victim: where the server keeps disruption
 * conditions, first the DisruptionTarget=True condition (reason
 * PreemptionByScheduler, message "<preemptor's schedulerName>: preempting
 * to accommodate a higher priority pod", as upstream), then the DELETE
 * with a UID precondition (a pod recreated under the same name is not
 * touched). Both urgent, in that order; as upstream, the DELETE is sent
 * only if the server accepted the condition. false when nothing could be
 * queued; a failure later is handed back by the poster
 * (ms_poster_take_failed_victims). */
bool ms_api_reporter_evict(ms_api_reporter *r, const ms_pod *victim, const ms_pod *preemptor);
/* status.nominatedNodeName = node (NULL: cleared). Urgent. */
void ms_api_reporter_nominate(ms_api_reporter *r, const ms_pod *pod, const char *node);
/* The pod is gone: its aggregation ends. */
void ms_api_reporter_forget(ms_api_reporter *r, const ms_pod *pod);
/* Unschedulable reports about the pod since it was last forgotten. */
uint32_t ms_api_reporter_failed_attempts(ms_api_reporter *r, const ms_pod *pod);
/* An Event about any object, within the budget, reported by `profile`
 * (a schedulerName; NULL: the recorder's controller). */
void ms_api_reporter_event(ms_api_reporter *r, const char *profile, const ms_object_ref *regarding, const char *type,
                           const char *reason, const char *action, const char *note);
/* Condition patches not sent because the message had not changed. */
uint64_t ms_api_reporter_patches_skipped(const ms_api_reporter *r);

#endif
