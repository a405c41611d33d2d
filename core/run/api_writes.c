/* run's API writers' plumbing. See run/api_writes.h. */
#include "run/api_writes.h"

ms_rc ms_api_writes_init(ms_api_writes *w, ms_kube_client *c, uint32_t max_in_flight, ms_error *err) {
    w->engine = NULL;
    if (ms_mailbox_init(&w->done) != 0) return ms_error_set(err, MS_ENOMEM, "out of file descriptors");
    return ms_kube_async_new(c, max_in_flight, &w->engine, err);
}

void ms_api_writes_stop(ms_api_writes *w) {
    ms_kube_async_free(w->engine, 0);
    w->engine = NULL;
}

void ms_api_writes_destroy(ms_api_writes *w, void (*free_job)(ms_job *j)) {
    ms_api_writes_stop(w);
    ms_mailbox_destroy(&w->done, free_job);
}

void ms_api_writes_finish(ms_api_writes *w, ms_job *j) { ms_mailbox_post(&w->done, j, false); }

ms_job *ms_api_writes_take(ms_api_writes *w) { return ms_mailbox_take_all(&w->done); }
