/* run's API writers' plumbing. See run/api_writes.h. */
#include "run/api_writes.h"

#include <sys/eventfd.h>
#include <unistd.h>

ms_rc ms_api_writes_init(ms_api_writes *w, ms_kube_client *c, uint32_t max_in_flight, ms_error *err) {
    w->engine = NULL;
    ms_job_queue_init(&w->done);
    w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (w->fd < 0) return ms_error_set(err, MS_ENOMEM, "out of file descriptors");
    return ms_kube_async_new(c, max_in_flight, &w->engine, err);
}

void ms_api_writes_stop(ms_api_writes *w) {
    ms_kube_async_free(w->engine, 0);
    w->engine = NULL;
}

void ms_api_writes_destroy(ms_api_writes *w, void (*free_job)(ms_job *j)) {
    ms_api_writes_stop(w);
    ms_job_queue_destroy(&w->done, free_job);
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
}

void ms_api_writes_finish(ms_api_writes *w, ms_job *j) {
    if (!ms_job_queue_push(&w->done, j, false)) return;   /* a wakeup is coming */
    uint64_t one = 1;
    if (write(w->fd, &one, sizeof one) < 0) { /* counter saturated: still readable */ }
}

ms_job *ms_api_writes_take(ms_api_writes *w) {
    uint64_t v;
    if (read(w->fd, &v, sizeof v) < 0) { /* nothing pending */ }
    return ms_job_queue_take_all(&w->done);
}
