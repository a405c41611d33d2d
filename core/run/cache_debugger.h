/* The cache debugger of `moonsched run` (upstream's
 * internal/cache/debugger), woken by SIGUSR2:
 *
 *   the dumper logs every node of the cache (allocatable, requested, its
 *   pods) and the pending pods of each queue, on the scheduler thread,
 *   which owns the cache and the queue;
 *   the comparer takes a view of the cache and queue from the scheduler
 *   thread (backend/cache_comparer.h) and, on a thread of its own, LISTs
 *   nodes and pods from the API server, compares, and logs each
 *   difference and a summary line:
 *     cache comparer: nodes=N pods=M differences=D
 *   (N, M: the API server's; D: 0 when the cache is in step). */
#ifndef MOONSCHED_CACHE_DEBUGGER_H
#define MOONSCHED_CACHE_DEBUGGER_H

#include "backend/cache.h"
#include "backend/cache_comparer.h"
#include "backend/queue.h"
#include "client/kube_client.h"
#include "moonsched/decode.h"
#include "moonsched/error.h"
#include "moonsched/log.h"

/* Scheduler thread. */
void ms_cache_dump(const ms_logger *log, const ms_interner *in, const ms_cache *c, ms_queue *q);

typedef struct ms_cache_debugger ms_cache_debugger;

typedef struct ms_cache_debugger_options {
    ms_kube_client *client;        /* shared; must outlive the debugger */
    const ms_decoder *decoder;     /* as the informers' */
    ms_interner *in;
    const ms_logger *log;
    /* The profiles' schedulerNames (interned): the API server's pending
     * pods that name none of them are not the queue's. */
    const ms_str *scheduler_names;
    uint32_t nscheduler_names;
} ms_cache_debugger_options;

ms_rc ms_cache_debugger_start(const ms_cache_debugger_options *o, ms_cache_debugger **out, ms_error *err);
/* Hands a view of the cache and queue (built on the scheduler thread) to
 * the comparer, which frees it. A request while one is queued replaces it. */
void ms_cache_debugger_compare(ms_cache_debugger *d, ms_cache_view *cached);
/* Cancels a comparison in progress, joins the thread, frees. NULL: nothing. */
void ms_cache_debugger_stop(ms_cache_debugger *d);

#endif
