/* A queue of jobs handed between threads, with an urgent lane: the
 * scheduler thread hands reports to the poster thread through one, and the
 * binder thread hands answered binds back through another.
 *
 * Jobs are intrusive: a job type starts with an ms_job member, and the
 * queue links them without allocating. Thread-safe. */
#ifndef MOONSCHED_JOB_QUEUE_H
#define MOONSCHED_JOB_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ms_job {
    struct ms_job *next;
} ms_job;

typedef struct ms_job_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ms_job *head, *tail;
    ms_job *uhead, *utail;         /* urgent ones, popped first */
    uint32_t len;
    bool closed;
} ms_job_queue;

void ms_job_queue_init(ms_job_queue *q);
/* Frees the jobs still queued with free_job. */
void ms_job_queue_destroy(ms_job_queue *q, void (*free_job)(ms_job *j));

/* Appends j to its lane (urgent ones go before every ordinary one, each
 * lane in order). True when the queue was empty: the consumer may need a
 * wakeup. */
bool ms_job_queue_push(ms_job_queue *q, ms_job *j, bool urgent);
/* Blocks until a job comes or the queue is closed; NULL once closed and
 * empty (jobs queued before the close are still handed out). */
ms_job *ms_job_queue_pop_wait(ms_job_queue *q);
/* Takes every job at once, linked through next: urgent ones first. */
ms_job *ms_job_queue_take_all(ms_job_queue *q);
uint32_t ms_job_queue_len(ms_job_queue *q);
void ms_job_queue_close(ms_job_queue *q);

#endif
