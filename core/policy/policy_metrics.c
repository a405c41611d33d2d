/* The policies' and shadows' figures. See policy/policy_metrics.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/prom.h"
#include "policy/policy_metrics.h"

enum { NAME_MAX_LEN = 128 };

typedef struct policy_row {
    char profile[NAME_MAX_LEN], plugin[NAME_MAX_LEN];
    uint64_t calls, failures, budget_kills, reloads_ok, reloads_failed;
    bool disabled;
} policy_row;

typedef struct shadow_row {
    char profile[NAME_MAX_LEN], policy[NAME_MAX_LEN];
    uint64_t agree, disagree, skipped;
} shadow_row;

struct ms_policy_metrics {
    pthread_mutex_t mu;
    policy_row *policies;
    uint32_t npolicies;
    shadow_row *shadows;
    uint32_t nshadows;
};

ms_policy_metrics *ms_policy_metrics_new(void) {
    ms_policy_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ms_policy_metrics_free(ms_policy_metrics *m) {
    if (!m) return;
    pthread_mutex_destroy(&m->mu);
    free(m->policies);
    free(m->shadows);
    free(m);
}

/* Resizes *rows to n (contents undefined) unless n is its size; false
 * when out of memory, *rows unchanged. Under m->mu. */
static bool resize(void **rows, uint32_t *nrows, uint32_t n, size_t size) {
    if (n == *nrows) return true;
    void *nr = n ? calloc(n, size) : NULL;
    if (n && !nr) return false;
    free(*rows);
    *rows = nr;
    *nrows = n;
    return true;
}

void ms_policy_metrics_set_policies(ms_policy_metrics *m, const ms_policy_figures *p, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (resize((void **)&m->policies, &m->npolicies, n, sizeof *m->policies))
        for (uint32_t i = 0; i < n; i++) {
            policy_row *d = &m->policies[i];
            snprintf(d->profile, sizeof d->profile, "%s", p[i].profile ? p[i].profile : "");
            snprintf(d->plugin, sizeof d->plugin, "%s", p[i].plugin ? p[i].plugin : "");
            d->calls = p[i].calls;
            d->failures = p[i].failures;
            d->budget_kills = p[i].budget_kills;
            d->reloads_ok = p[i].reloads_ok;
            d->reloads_failed = p[i].reloads_failed;
            d->disabled = p[i].disabled;
        }
    pthread_mutex_unlock(&m->mu);
}

void ms_policy_metrics_set_shadows(ms_policy_metrics *m, const ms_shadow_figures *p, uint32_t n) {
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (resize((void **)&m->shadows, &m->nshadows, n, sizeof *m->shadows))
        for (uint32_t i = 0; i < n; i++) {
            shadow_row *d = &m->shadows[i];
            snprintf(d->profile, sizeof d->profile, "%s", p[i].profile ? p[i].profile : "");
            snprintf(d->policy, sizeof d->policy, "%s", p[i].policy ? p[i].policy : "");
            d->agree = p[i].agree;
            d->disagree = p[i].disagree;
            d->skipped = p[i].skipped;
        }
    pthread_mutex_unlock(&m->mu);
}

static void render_policies(ms_buf *b, const ms_policy_metrics *m) {
    char e1[2 * NAME_MAX_LEN + 4], e2[2 * NAME_MAX_LEN + 4];
#define POLICY_SERIES(fmt, ...)                                                                    \
    for (uint32_t i = 0; i < m->npolicies; i++) {                                                  \
        const policy_row *pm = &m->policies[i];                                                    \
        ms_prom_escape(pm->profile, e1, sizeof e1);                                                \
        ms_prom_escape(pm->plugin, e2, sizeof e2);                                                 \
        ms_buf_printf(b, fmt, __VA_ARGS__);                                                        \
    }
    ms_prom_header(b, "moonsched_policy_reloads_total", "counter",
           "Lua policy versions swapped in (ok) or refused, the running one staying (refused).");
    POLICY_SERIES("moonsched_policy_reloads_total{plugin=\"%s\",profile=\"%s\",result=\"ok\"} %llu\n"
                  "moonsched_policy_reloads_total{plugin=\"%s\",profile=\"%s\",result=\"refused\"} %llu\n",
                  e2, e1, (unsigned long long)pm->reloads_ok, e2, e1,
                  (unsigned long long)pm->reloads_failed)
    ms_prom_header(b, "moonsched_policy_calls_total", "counter", "Calls into Lua policies.");
    POLICY_SERIES("moonsched_policy_calls_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->calls)
    ms_prom_header(b, "moonsched_policy_call_failures_total", "counter",
           "Lua policy calls that failed (errors, budget or memory cap).");
    POLICY_SERIES("moonsched_policy_call_failures_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->failures)
    ms_prom_header(b, "moonsched_policy_budget_kills_total", "counter",
           "Lua policy calls stopped by the CPU budget.");
    POLICY_SERIES("moonsched_policy_budget_kills_total{plugin=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                  (unsigned long long)pm->budget_kills)
    ms_prom_header(b, "moonsched_policy_disabled", "gauge",
           "1 while the policy is disabled after too many consecutive failures.");
    POLICY_SERIES("moonsched_policy_disabled{plugin=\"%s\",profile=\"%s\"} %d\n", e2, e1,
                  pm->disabled ? 1 : 0)
#undef POLICY_SERIES
}

static void render_shadows(ms_buf *b, const ms_policy_metrics *m) {
    char e1[2 * NAME_MAX_LEN + 4], e2[2 * NAME_MAX_LEN + 4];
    if (m->nshadows == 0) return;
    ms_prom_header(b, "moonsched_shadow_decisions_total", "counter",
           "Choices of shadow policies, agreeing with their profile's (true) or not (false).");
    for (uint32_t i = 0; i < m->nshadows; i++) {
        const shadow_row *sm = &m->shadows[i];
        ms_prom_escape(sm->profile, e1, sizeof e1);
        ms_prom_escape(sm->policy, e2, sizeof e2);
        ms_buf_printf(b,
                      "moonsched_shadow_decisions_total{policy=\"%s\",profile=\"%s\",agree=\"true\"} %llu\n"
                      "moonsched_shadow_decisions_total{policy=\"%s\",profile=\"%s\",agree=\"false\"} %llu\n",
                      e2, e1, (unsigned long long)sm->agree, e2, e1, (unsigned long long)sm->disagree);
    }
    /* Apart, so that agree="true" over the family's sum stays the share
     * of real decisions the shadow agreed with. */
    ms_prom_header(b, "moonsched_shadow_skipped_total", "counter",
           "Cycles a shadow policy sat out while disabled or with no version loaded; not decisions.");
    for (uint32_t i = 0; i < m->nshadows; i++) {
        const shadow_row *sm = &m->shadows[i];
        ms_prom_escape(sm->profile, e1, sizeof e1);
        ms_prom_escape(sm->policy, e2, sizeof e2);
        ms_buf_printf(b, "moonsched_shadow_skipped_total{policy=\"%s\",profile=\"%s\"} %llu\n", e2, e1,
                      (unsigned long long)sm->skipped);
    }
}

void ms_policy_metrics_collect(void *ctx, ms_buf *b) {
    ms_policy_metrics *m = ctx;
    pthread_mutex_lock(&m->mu);
    render_policies(b, m);
    render_shadows(b, m);
    pthread_mutex_unlock(&m->mu);
}
