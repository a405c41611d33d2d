/* Kubernetes Events, as client-go's EventRecorder writes them: an
 * events.k8s.io/v1 Event (eventTime, reportingController, action, note,
 * regarding and related, series for repeats), with the core/v1 form
 * (involvedObject, message, source.component, first/lastTimestamp, count)
 * ready for a server that has no events.k8s.io/v1.
 *
 * A repeat of an Event already posted updates it, as client-go's
 * events.k8s.io recorder does for an event series: a PATCH of its
 * series.count and series.lastObservedTime (core/v1: count and
 * lastTimestamp) instead of a new Event (ms_event_recorder_build_series).
 *
 * Building and posting are apart: `run` builds on the scheduler thread,
 * where the interned strings resolve, and posts from its poster thread;
 * leader election does both on its own thread. */
#ifndef MOONSCHED_EVENT_RECORDER_H
#define MOONSCHED_EVENT_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "client/kube_client.h"
#include "moonsched/error.h"

/* What an Event is about (upstream: ObjectReference). uid NULL or "":
 * none written. */
typedef struct ms_object_ref {
    const char *api_version, *kind, *ns, *name, *uid;
} ms_object_ref;

typedef struct ms_event {
    const ms_object_ref *regarding;
    const ms_object_ref *related;  /* NULL: none; core/v1 has no place for it */
    const char *type;              /* "Normal" or "Warning" */
    const char *reason, *action, *note;
    uint32_t count;                /* occurrences it stands for: > 1 writes a series; 0 counts as 1 */
    /* reportingController (source.component) and reportingInstance of this
     * Event; NULL: the recorder's. A scheduler reports as the pod's
     * profile: its schedulerName, and that name, "-", the host name. */
    const char *controller, *instance;
} ms_event;

/* The requests that post one Event: path and body first, then, when that
 * answers 404, the fallback (NULL: none). malloc'd. method NULL is POST;
 * a PATCH is a strategic merge patch. series: the first request updates
 * an Event posted before, and its fallback posts it anew (it expired, or
 * never got through); otherwise the fallback is the core/v1 form for a
 * server without events.k8s.io/v1. name: the Event's metadata.name. */
typedef struct ms_event_post {
    char *path, *body;
    char *fallback_path, *fallback_body;
    const char *method;
    bool series;
    char name[320];
} ms_event_post;

void ms_event_post_free(ms_event_post *p);

typedef struct ms_event_recorder ms_event_recorder;

typedef struct ms_event_recorder_options {
    const char *controller;        /* reportingController, source.component (copied) */
    const char *instance;          /* reportingInstance (copied) */
    bool core_only;                /* core/v1 Events only, as LeaseLock.RecordEvent */
} ms_event_recorder_options;

/* NULL when out of memory. */
ms_event_recorder *ms_event_recorder_new(const ms_event_recorder_options *o);
void ms_event_recorder_free(ms_event_recorder *r);

/* The requests for ev at wall-clock time `wall`: events.k8s.io/v1 with the
 * core/v1 fallback, or core/v1 alone once a server answered 404 to
 * events.k8s.io/v1 (or with core_only). Names are "<regarding name>.<hex
 * microseconds><hex counter>", unique however many come in a microsecond.
 * One building thread at a time. MS_ENOMEM leaves out empty. */
ms_rc ms_event_recorder_build(ms_event_recorder *r, const ms_event *ev, double wall, ms_event_post *out);

/* The requests that record one more occurrence of an Event posted as
 * `name` (out->name of its first build): ev->count occurrences in all (at
 * least 2), the last at `wall`. events.k8s.io/v1: PATCH
 * {"series":{"count","lastObservedTime"}}; core/v1 (the recorder's
 * choice, as for build): PATCH {"count","lastTimestamp"}. The fallback,
 * for a 404, posts the whole Event under the same name with the series.
 * MS_ENOMEM leaves out empty. */
ms_rc ms_event_recorder_build_series(ms_event_recorder *r, const ms_event *ev, const char *name, double wall,
                                     ms_event_post *out);

/* How ms_event_recorder_send sends. */
typedef struct ms_event_send_options {
    double timeout;                /* per request, seconds; 0: the client's */
    ms_kube_cancel *cancel;        /* NULL: not cancellable */
    /* Hears of every answer (status 0: none came), e.g. for metrics; may
     * be NULL. */
    void (*answered)(void *ctx, long status);
    void *ctx;
} ms_event_send_options;

/* Posts p on c (any thread): a 404 to the first request sends the
 * fallback, and (unless p is a series update) from then on this recorder
 * builds core/v1 only. rc and
 * resp as ms_kube_do's, for the last request sent (free resp in every
 * case). */
ms_rc ms_event_recorder_send(ms_event_recorder *r, ms_kube_client *c, const ms_event_post *p,
                             const ms_event_send_options *o, ms_kube_response *resp, ms_error *err);

#endif
