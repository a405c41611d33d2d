/* Changes to cluster objects on their way from the informers (one thread
 * each) to the scheduler thread: multi-producer, single-consumer, FIFO,
 * unbounded. The consumer blocks on it with a timeout, or polls its
 * eventfd together with other file descriptors. */
#ifndef MOONSCHED_DELTA_QUEUE_H
#define MOONSCHED_DELTA_QUEUE_H

#include <stddef.h>

#include "api/delta.h"
#include "moonsched/error.h"

typedef struct ms_delta_queue ms_delta_queue;

/* NULL when out of memory or when no eventfd can be made. */
ms_delta_queue *ms_delta_queue_new(void);
/* Releases the deltas still queued. No producer may use it any more. */
void ms_delta_queue_free(ms_delta_queue *q);

/* The queue takes over the deltas' references. MS_ESTATE after close (the
 * references are released), MS_ENOMEM when the queue cannot grow (the
 * caller keeps them). */
ms_rc ms_delta_queue_push(ms_delta_queue *q, const ms_delta *d);
ms_rc ms_delta_queue_push_many(ms_delta_queue *q, const ms_delta *d, size_t n);

/* Moves up to max deltas into out, oldest first. Waits up to timeout
 * seconds for the first one (< 0: without limit, 0: not at all). Returns
 * the number moved; 0 on timeout, or at once when the queue is closed and
 * empty. Only one thread may pop. */
size_t ms_delta_queue_pop(ms_delta_queue *q, ms_delta *out, size_t max, double timeout);

/* Readable (poll/epoll) while the queue holds deltas or is closed. */
int ms_delta_queue_fd(const ms_delta_queue *q);

/* Wakes the consumer; later pushes are refused. Pops still drain what is
 * queued. */
void ms_delta_queue_close(ms_delta_queue *q);

size_t ms_delta_queue_len(ms_delta_queue *q);

#endif
