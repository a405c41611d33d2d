/* The job queue. See base/job_queue.h. */
#include <string.h>

#include "base/job_queue.h"

void ms_job_queue_init(ms_job_queue *q) {
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
}

static void free_list(ms_job *j, void (*free_job)(ms_job *j)) {
    while (j) {
        ms_job *n = j->next;
        free_job(j);
        j = n;
    }
}

void ms_job_queue_destroy(ms_job_queue *q, void (*free_job)(ms_job *j)) {
    free_list(q->uhead, free_job);
    free_list(q->head, free_job);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
}

bool ms_job_queue_push(ms_job_queue *q, ms_job *j, bool urgent) {
    j->next = NULL;
    pthread_mutex_lock(&q->mu);
    bool was_empty = !q->head && !q->uhead;
    ms_job **head = urgent ? &q->uhead : &q->head, **tail = urgent ? &q->utail : &q->tail;
    if (*tail) (*tail)->next = j;
    else *head = j;
    *tail = j;
    q->len++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return was_empty;
}

static ms_job *pop_from(ms_job **head, ms_job **tail) {
    ms_job *j = *head;
    if (!j) return NULL;
    *head = j->next;
    if (!*head) *tail = NULL;
    return j;
}

ms_job *ms_job_queue_pop_wait(ms_job_queue *q) {
    pthread_mutex_lock(&q->mu);
    while (!q->uhead && !q->head && !q->closed) pthread_cond_wait(&q->cv, &q->mu);
    ms_job *j = pop_from(&q->uhead, &q->utail);
    if (!j) j = pop_from(&q->head, &q->tail);
    if (j) q->len--;
    pthread_mutex_unlock(&q->mu);
    return j;
}

ms_job *ms_job_queue_take_all(ms_job_queue *q) {
    pthread_mutex_lock(&q->mu);
    ms_job *j = q->head;
    if (q->uhead) {
        q->utail->next = q->head;
        j = q->uhead;
    }
    q->head = q->tail = q->uhead = q->utail = NULL;
    q->len = 0;
    pthread_mutex_unlock(&q->mu);
    return j;
}

uint32_t ms_job_queue_len(ms_job_queue *q) {
    pthread_mutex_lock(&q->mu);
    uint32_t n = q->len;
    pthread_mutex_unlock(&q->mu);
    return n;
}

void ms_job_queue_close(ms_job_queue *q) {
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}
