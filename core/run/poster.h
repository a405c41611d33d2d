/* `run`'s reports to the API server: PodScheduled status patches,
 * nominations, preemption's deletions and Events, sent in order by a
 * thread of its own (with a client of its own) so that the scheduler
 * thread never waits for them.
 *
 * Reports are best effort. Urgent ones (deletions and nominations, which
 * a preemptor waits for) go before the waiting patches and Events, which
 * can be thousands when many pods do not fit; once `backlog` ordinary ones
 * wait, more are dropped and counted as suppressed. */
#ifndef MOONSCHED_POSTER_H
#define MOONSCHED_POSTER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/log.h"
#include "client/event_recorder.h"
#include "client/kube_client.h"
#include "run/api_metrics.h"
#include "moonsched/error.h"

typedef struct ms_poster ms_poster;

typedef struct ms_poster_options {
    ms_kube_client *client;        /* must outlive the poster */
    ms_event_recorder *events;     /* posts the Events (fallback); must outlive it */
    ms_api_metrics *metrics;           /* moonsched_api_requests_total; may be NULL */
    const ms_logger *log;          /* NULL: ms_log_default */
    uint32_t backlog;              /* ordinary reports waiting at most; 0: 20000 */
} ms_poster_options;

typedef struct ms_poster_stats {
    uint64_t events_posted, events_failed, events_suppressed;
    uint64_t status_patches;       /* PodScheduled and nomination patches accepted */
} ms_poster_stats;

ms_rc ms_poster_start(const ms_poster_options *o, ms_poster **out, ms_error *err);
/* Sends what is queued and stops the thread; the stats are final. */
void ms_poster_stop(ms_poster *p);
/* Stops p and frees it (NULL is fine). */
void ms_poster_free(ms_poster *p);

/* Queues a request (method: a literal); takes path and body, the JSON
 * that is sent (NULL path or body: counted as suppressed). */
void ms_poster_send(ms_poster *p, const char *method, char *path, cJSON *body, const char *content_type,
                    bool urgent);
/* A request: method a literal; path and body taken by the send. */
typedef struct ms_poster_request {
    const char *method;
    char *path;
    cJSON *body;
    const char *content_type;
    /* The uid hash of the preemption victim this request deletes (or
     * prepares the deletion of); 0: none. */
    uint64_t victim;
} ms_poster_request;
/* Queues first, and then (NULL: none), sent right after it only if the
 * server accepted first (2xx); otherwise then is dropped, with a warning.
 * Takes both requests' paths and bodies. false when nothing was queued
 * (out of memory, no path or body): the victim's deletion was not asked
 * for. When a victim's request fails, or the one it depends on does, the
 * victim is handed back (ms_poster_take_failed_victims), unless the server
 * said the pod is gone (404) or is another one now (409, the UID
 * precondition): the watch shows that deletion. */
bool ms_poster_send_then(ms_poster *p, const ms_poster_request *first, const ms_poster_request *then,
                         bool urgent);
/* Readable while victims whose deletion failed may wait to be taken. */
int ms_poster_fd(const ms_poster *p);
/* Calls fn with each victim whose deletion failed since the last take, in
 * the order they failed. From one thread (the one polling ms_poster_fd). */
void ms_poster_take_failed_victims(ms_poster *p, void (*fn)(void *ctx, uint64_t victim), void *ctx);
/* Queues an Event (an ordinary report); takes ev's strings. */
void ms_poster_event(ms_poster *p, ms_event_post *ev);
/* An Event that is not sent (aggregated, over budget): counted. */
void ms_poster_suppressed(ms_poster *p);
void ms_poster_stats_get(ms_poster *p, ms_poster_stats *out);

#endif
