/* `run`'s binder: each bind is a POST of a Binding to pods/NAME/binding,
 * sent by the async client (many in flight over shared connections). The
 * answers come back on the client's thread and wait in a queue for the
 * scheduler thread, whose loop a readable fd wakes; it drains them and
 * tells the scheduler each outcome.
 *
 * An outcome is ok (2xx), gone (404: the pod was deleted meanwhile,
 * nothing to retry), a conflict (409, read from the Status message: bound
 * by someone else, gated on the server, replaced under the same name,
 * being deleted, or something else) or failed (any other answer, or none:
 * the scheduler requeues the pod). At shutdown, binds not answered are
 * dropped: the pods stay pending on the server for the next scheduler. */
#ifndef MOONSCHED_API_BINDER_H
#define MOONSCHED_API_BINDER_H

#include <stdbool.h>
#include <stdint.h>

#include "client/kube_client.h"
#include "run/api_metrics.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"
#include "moonsched/scheduler.h"

typedef struct ms_api_binder ms_api_binder;

/* One answered bind, as the drain hands it over. */
typedef struct ms_bind_outcome {
    ms_pod *pod;
    const char *node;
    bool ok, gone;
    bool conflict;                 /* 409: `why` says what it meant */
    ms_bind_conflict why;
    const char *message;           /* why it failed; "" when ok */
    double attempt_start;          /* as given to ms_api_binder_bind */
    /* Monotonic: handed to the client, on the wire (0: never sent),
     * answered (on the client's thread). */
    double submitted, sent, answered;
    uint32_t profile;
} ms_bind_outcome;

/* in: resolves the pods' names (the scheduler thread's). max_in_flight: 0
 * for 64. metrics (moonsched_api_requests_total) may be NULL. */
ms_rc ms_api_binder_new(ms_kube_client *c, const ms_interner *in, ms_api_metrics *metrics,
                        uint32_t max_in_flight, ms_api_binder **out, ms_error *err);
/* Stops the client's engine: binds not answered by now are dropped (they
 * are drained as such, without an outcome). */
void ms_api_binder_stop(ms_api_binder *b);
void ms_api_binder_free(ms_api_binder *b);

/* Sends pod's Binding to node (scheduler thread). attempt_start and
 * profile come back with the outcome, for metrics. MS_ESTATE once
 * stopped. */
ms_rc ms_api_binder_bind(ms_api_binder *b, const ms_pod *pod, const char *node, double attempt_start,
                         uint32_t profile);
/* Readable while answers wait (an eventfd). */
int ms_api_binder_fd(const ms_api_binder *b);
/* Binds sent and not yet drained. */
uint32_t ms_api_binder_in_flight(const ms_api_binder *b);
/* What a 409's Status message means, in the words of the API server's
 * pods/binding storage (v1.20 to v1.30+). */
ms_bind_conflict ms_api_binder_conflict_of(const char *message);
/* Hands every answered bind to fn, in the order the answers came
 * (scheduler thread); dropped ones are only counted off. */
void ms_api_binder_drain(ms_api_binder *b, void (*fn)(void *ctx, const ms_bind_outcome *o), void *ctx);

#endif
