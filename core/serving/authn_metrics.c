/* The secure port's authentication counts. See serving/authn_metrics.h. */
#include <stdatomic.h>
#include <stdlib.h>

#include "base/prom.h"
#include "serving/authn_metrics.h"

struct ms_authn_metrics {
    atomic_uint_fast64_t attempts[MS_AUTHN_NRESULTS];
};

static const char *const result_names[] = {"success", "failure", "error", "throttled"};

ms_authn_metrics *ms_authn_metrics_new(void) { return calloc(1, sizeof(ms_authn_metrics)); }

void ms_authn_metrics_free(ms_authn_metrics *m) { free(m); }

void ms_authn_metrics_attempt(ms_authn_metrics *m, ms_authn_result result) {
    if (!m || (unsigned)result >= MS_AUTHN_NRESULTS) return;
    atomic_fetch_add_explicit(&m->attempts[result], 1, memory_order_relaxed);
}

void ms_authn_metrics_collect(void *ctx, ms_buf *b) {
    ms_authn_metrics *m = ctx;
    ms_prom_header(b, "moonsched_authentication_attempts_total", "counter",
           "Requests to the secure port by how they were authenticated (as the API server's "
           "authentication_attempts, and throttled: refused without a review after too many failures "
           "from the address).");
    for (int i = 0; i < MS_AUTHN_NRESULTS; i++)
        ms_buf_printf(b, "moonsched_authentication_attempts_total{result=\"%s\"} %llu\n", result_names[i],
                      (unsigned long long)atomic_load_explicit(&m->attempts[i], memory_order_relaxed));
}
