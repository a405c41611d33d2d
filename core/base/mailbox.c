/* The mailbox. See base/mailbox.h. */
#include "base/mailbox.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int ms_mailbox_init(ms_mailbox *m) {
    m->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (m->fd < 0) return -1;
    ms_job_queue_init(&m->q);
    return 0;
}

void ms_mailbox_destroy(ms_mailbox *m, void (*free_job)(ms_job *j)) {
    if (m->fd < 0) return;
    ms_job_queue_destroy(&m->q, free_job);
    close(m->fd);
    m->fd = -1;
}

void ms_mailbox_wake(ms_mailbox *m) {
    uint64_t one = 1;
    /* EAGAIN: the counter is full, so the fd is readable anyway. */
    while (write(m->fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void ms_mailbox_post(ms_mailbox *m, ms_job *j, bool urgent) {
    /* Not empty: a wake-up is already on its way or pending in the fd. */
    if (ms_job_queue_push(&m->q, j, urgent)) ms_mailbox_wake(m);
}

void ms_mailbox_drain(ms_mailbox *m) {
    uint64_t v;
    /* EAGAIN: nothing was pending. */
    while (read(m->fd, &v, sizeof v) < 0 && errno == EINTR) {}
}

ms_job *ms_mailbox_take_all(ms_mailbox *m) {
    /* Drain before taking: a post that lands after the take finds the queue
     * empty and wakes again, so no job is left without readiness. */
    if (!ms_mailbox_closed(m)) ms_mailbox_drain(m);
    return ms_job_queue_take_all(&m->q);
}

int ms_mailbox_fd(const ms_mailbox *m) { return m->fd; }

bool ms_mailbox_wait(const ms_mailbox *m, double timeout) {
    struct pollfd p = {.fd = m->fd, .events = POLLIN};
    /* Rounded up: a wait cut to 0 ms short of the deadline would spin. */
    int ms = timeout < 0 ? -1 : timeout > 86400.0 ? 86400000 : (int)ceil(timeout * 1000.0);
    return poll(&p, 1, ms) == 1;
}

void ms_mailbox_close(ms_mailbox *m) {
    ms_job_queue_close(&m->q);
    ms_mailbox_wake(m);
}

bool ms_mailbox_closed(ms_mailbox *m) {
    pthread_mutex_lock(&m->q.mu);
    bool c = m->q.closed;
    pthread_mutex_unlock(&m->q.mu);
    return c;
}
