/* What run's API writers of PreBind (the volume binder, the claim writer)
 * share: an async client engine that sends their requests, and a queue of
 * finished jobs handed from the client's thread to the scheduler thread,
 * whose loop the mailbox's fd wakes. */
#ifndef MOONSCHED_API_WRITES_H
#define MOONSCHED_API_WRITES_H

#include <stdint.h>

#include "client/kube_client.h"
#include "base/mailbox.h"
#include "moonsched/error.h"

typedef struct ms_api_writes {
    ms_kube_async *engine;         /* NULL once stopped */
    ms_mailbox done;               /* finished jobs, for the scheduler thread */
} ms_api_writes;

/* On failure what was made is undone by ms_api_writes_destroy. */
ms_rc ms_api_writes_init(ms_api_writes *w, ms_kube_client *c, uint32_t max_in_flight, ms_error *err);
/* Stops the engine: requests not answered by now are dropped. */
void ms_api_writes_stop(ms_api_writes *w);
/* Stops, then frees the jobs still queued with free_job. */
void ms_api_writes_destroy(ms_api_writes *w, void (*free_job)(ms_job *j));
/* A job is over (client thread): queued, and the fd made readable. */
void ms_api_writes_finish(ms_api_writes *w, ms_job *j);
/* Every finished job, linked through next, the fd read (scheduler thread). */
ms_job *ms_api_writes_take(ms_api_writes *w);

#endif
