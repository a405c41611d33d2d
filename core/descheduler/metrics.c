/* The descheduler's metrics and their Prometheus text. See
 * descheduler/metrics.h. */
#include "descheduler/metrics.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/buf.h"
#include "base/prom.h"

static const double loop_le[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500};
static const double strategy_le[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100};
static const ms_prom_bounds loop_bounds = {loop_le, sizeof loop_le / sizeof loop_le[0]};
static const ms_prom_bounds strategy_bounds = {strategy_le, sizeof strategy_le / sizeof strategy_le[0]};

/* One series: its labels rendered once ("a=\"x\",b=\"y\""). */
typedef struct series {
    char *labels;
    unsigned long long count;
    ms_prom_histogram h;
} series;

struct ms_desched_metrics {
    pthread_mutex_t mu;
    series *evicted;
    uint32_t nevicted, evcap;
    series *strategies;
    uint32_t nstrategies, stcap;
    ms_prom_histogram loop;
    series *reloads;               /* per plugin, ok then refused */
    uint32_t nreloads, rlcap;
};

ms_desched_metrics *ms_desched_metrics_new(void) {
    ms_desched_metrics *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_desched_metrics_free(ms_desched_metrics *m) {
    if (!m) return;
    for (uint32_t i = 0; i < m->nevicted; i++) free(m->evicted[i].labels);
    for (uint32_t i = 0; i < m->nstrategies; i++) free(m->strategies[i].labels);
    for (uint32_t i = 0; i < m->nreloads; i++) free(m->reloads[i].labels);
    free(m->evicted);
    free(m->strategies);
    free(m->reloads);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* The series of these labels, added when new; NULL when out of memory. */
static series *find(series **list, uint32_t *n, uint32_t *cap, const char *labels) {
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp((*list)[i].labels, labels) == 0) return &(*list)[i];
    if (!ms_array_grow((void **)list, cap, *n + 1, sizeof **list)) return NULL;
    series *s = &(*list)[*n];
    memset(s, 0, sizeof *s);
    if (!(s->labels = strdup(labels))) return NULL;
    (*n)++;
    return s;
}

/* Label values quoted as the text format wants (\\, \", \n). */
static void put_value(ms_buf *b, const char *v) {
    for (; *v; v++) {
        if (*v == '\\' || *v == '"') ms_buf_putc(b, '\\');
        if (*v == '\n') ms_buf_puts(b, "\\n");
        else ms_buf_putc(b, *v);
    }
}

void ms_desched_metrics_evicted(ms_desched_metrics *m, const char *result, const char *strategy,
                                const char *profile, const char *ns, const char *node) {
    ms_buf b = {0};
    const char *keys[] = {"namespace", "node", "profile", "result", "strategy"};
    const char *vals[] = {ns, node, profile, result, strategy};
    for (int i = 0; i < 5; i++) {
        ms_buf_printf(&b, "%s%s=\"", i ? "," : "", keys[i]);
        put_value(&b, vals[i] ? vals[i] : "");
        ms_buf_putc(&b, '"');
    }
    if (!b.failed) {
        pthread_mutex_lock(&m->mu);
        series *s = find(&m->evicted, &m->nevicted, &m->evcap, b.data);
        if (s) s->count++;
        pthread_mutex_unlock(&m->mu);
    }
    ms_buf_free(&b);
}

void ms_desched_metrics_loop(ms_desched_metrics *m, double seconds) {
    pthread_mutex_lock(&m->mu);
    ms_prom_observe(&m->loop, &loop_bounds, seconds);
    pthread_mutex_unlock(&m->mu);
}

void ms_desched_metrics_strategy(ms_desched_metrics *m, const char *strategy, const char *profile,
                                 double seconds) {
    ms_buf b = {0};
    ms_buf_puts(&b, "profile=\"");
    put_value(&b, profile);
    ms_buf_puts(&b, "\",strategy=\"");
    put_value(&b, strategy);
    ms_buf_putc(&b, '"');
    if (!b.failed) {
        pthread_mutex_lock(&m->mu);
        series *s = find(&m->strategies, &m->nstrategies, &m->stcap, b.data);
        if (s) ms_prom_observe(&s->h, &strategy_bounds, seconds);
        pthread_mutex_unlock(&m->mu);
    }
    ms_buf_free(&b);
}

/* Both series of a plugin, so that a count of 0 shows too. */
static series *reload_series(ms_desched_metrics *m, const char *plugin, bool ok) {
    series *s = NULL;
    for (int r = 1; r >= 0; r--) {
        ms_buf b = {0};
        ms_buf_puts(&b, "plugin=\"");
        put_value(&b, plugin);
        ms_buf_printf(&b, "\",profile=\"\",result=\"%s\"", r ? "ok" : "refused");
        series *x = b.failed ? NULL : find(&m->reloads, &m->nreloads, &m->rlcap, b.data);
        ms_buf_free(&b);
        if (r == ok) s = x;
    }
    return s;
}

void ms_desched_metrics_reload(ms_desched_metrics *m, const char *plugin, bool ok) {
    pthread_mutex_lock(&m->mu);
    series *s = reload_series(m, plugin, ok);
    if (s) s->count++;
    pthread_mutex_unlock(&m->mu);
}

void ms_desched_metrics_collect(void *ctx, ms_buf *b) {
    ms_desched_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    ms_buf_puts(b, "# HELP descheduler_pods_evicted_total Number of total evicted pods, by the result, by the "
                    "strategy, by the namespace, by the node name. 'error' result means a pod could not be evicted\n"
                    "# TYPE descheduler_pods_evicted_total counter\n");
    for (uint32_t i = 0; i < m->nevicted; i++)
        ms_buf_printf(b, "descheduler_pods_evicted_total{%s} %llu\n", m->evicted[i].labels, m->evicted[i].count);
    ms_buf_puts(b, "# HELP descheduler_loop_duration_seconds Time taken to complete a full descheduling cycle\n"
                    "# TYPE descheduler_loop_duration_seconds histogram\n");
    ms_prom_put_histogram(b, "descheduler_loop_duration_seconds", "", &m->loop, &loop_bounds);
    ms_buf_puts(b, "# HELP descheduler_strategy_duration_seconds Time taken to complete Each strategy of the "
                    "descheduling operation\n# TYPE descheduler_strategy_duration_seconds histogram\n");
    for (uint32_t i = 0; i < m->nstrategies; i++)
        ms_prom_put_histogram(b, "descheduler_strategy_duration_seconds", m->strategies[i].labels,
                              &m->strategies[i].h, &strategy_bounds);
    /* As `run` names it; the policy file and its Lua files reload as one,
     * each --policy file on its own. */
    ms_buf_puts(b, "# HELP moonsched_policy_reloads_total Lua policy versions swapped in (ok) or refused, the running one staying (refused).\n"
                    "# TYPE moonsched_policy_reloads_total counter\n");
    if (m->nreloads == 0) reload_series(m, "DeschedulerPolicy", true);
    for (uint32_t i = 0; i < m->nreloads; i++)
        ms_buf_printf(b, "moonsched_policy_reloads_total{%s} %llu\n", m->reloads[i].labels, m->reloads[i].count);
    pthread_mutex_unlock(&m->mu);
}
