/* The leader election gauge. See client/leader_metrics.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/prom.h"
#include "client/leader_metrics.h"

struct ms_leader_metrics {
    pthread_mutex_t mu;
    bool set, leading;
    char lease[256];
};

ms_leader_metrics *ms_leader_metrics_new(void) {
    ms_leader_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_leader_metrics_free(ms_leader_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void ms_leader_metrics_changed(void *ctx, const char *lease, bool leading) {
    ms_leader_metrics *m = ctx;
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    m->set = true;
    m->leading = leading;
    snprintf(m->lease, sizeof m->lease, "%s", lease ? lease : "");
    pthread_mutex_unlock(&m->mu);
}

void ms_leader_metrics_collect(void *ctx, ms_buf *b) {
    ms_leader_metrics *m = ctx;
    char e[2 * sizeof m->lease + 4];
    pthread_mutex_lock(&m->mu);
    if (m->set) {
        ms_prom_header(b, "leader_election_master_status", "gauge",
               "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
               "indicates master. 'name' is the string used to identify the lease. Please make sure to "
               "group by name.");
        ms_buf_printf(b, "leader_election_master_status{name=\"%s\"} %d\n", ms_prom_escape(m->lease, e, sizeof e),
                      m->leading ? 1 : 0);
    }
    pthread_mutex_unlock(&m->mu);
}
