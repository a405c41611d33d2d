/* A job queue another thread polls on: the queue of base/job_queue.h with
 * an eventfd that is readable while jobs may be waiting, so that a thread
 * that waits on several file descriptors (the scheduler loop, a watcher)
 * can wait on this one too. A mailbox without jobs is a plain wake-up.
 *
 * Producers post from any thread; one consumer takes. Readiness may be
 * spurious (a take can find nothing), never missing: a post that finds the
 * queue empty wakes, and the consumer clears the fd before it takes. */
#ifndef MOONSCHED_MAILBOX_H
#define MOONSCHED_MAILBOX_H

#include <stdbool.h>

#include "base/job_queue.h"

typedef struct ms_mailbox {
    ms_job_queue q;
    int fd;                        /* eventfd; -1 before init and after destroy */
} ms_mailbox;

/* 0, or -1 with errno set when no eventfd can be made (nothing is then
 * held: fd is -1). */
int ms_mailbox_init(ms_mailbox *m);
/* Frees the jobs still queued with free_job (NULL: none may be left). Does
 * nothing while fd is -1, so an owner may set fd to -1 before init and
 * destroy on any path. */
void ms_mailbox_destroy(ms_mailbox *m, void (*free_job)(ms_job *j));

/* Queues j (urgent ones are taken first) and wakes the consumer when the
 * mailbox was empty. */
void ms_mailbox_post(ms_mailbox *m, ms_job *j, bool urgent);
/* Makes the fd readable without a job. */
void ms_mailbox_wake(ms_mailbox *m);
/* Clears readiness, then takes every job, linked through next, urgent ones
 * first; NULL when there is none. */
ms_job *ms_mailbox_take_all(ms_mailbox *m);
/* Clears readiness only (for a mailbox used as a wake-up). */
void ms_mailbox_drain(ms_mailbox *m);
/* Readable (poll/epoll) while jobs may be waiting, after a wake, and once
 * closed. */
int ms_mailbox_fd(const ms_mailbox *m);
/* Waits up to timeout seconds (< 0: without limit) for the fd to be
 * readable, for a consumer that has no other fd to wait on. True when it
 * is; false on timeout or a signal (the caller checks its deadline).
 * Readiness stays as it was. */
bool ms_mailbox_wait(const ms_mailbox *m, double timeout);

/* Marks the queue closed and wakes the consumer; the fd stays readable. */
void ms_mailbox_close(ms_mailbox *m);
bool ms_mailbox_closed(ms_mailbox *m);

#endif
