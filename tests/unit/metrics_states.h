/* Every metric of `run`'s sets and of the descheduler's in one known
 * state, for the golden expositions of tests/unit/metrics_golden.h, and the
 * expositions as the commands' registries render them. */
#ifndef MOONSCHED_TEST_METRICS_STATES_H
#define MOONSCHED_TEST_METRICS_STATES_H

#include <stdlib.h>
#include <string.h>

#include "base/metrics_registry.h"
#include "client/leader_metrics.h"
#include "descheduler/metrics.h"
#include "run/metric_sets.h"

/* What a registry of one collector renders: one set's families alone;
 * malloc'd, NULL when out of memory. */
static inline char *metrics_render_one(ms_metrics_collector collect, void *ctx, size_t *len) {
    ms_metrics_registry *r = ms_metrics_registry_new();
    char *t = r && ms_metrics_registry_add(r, collect, ctx) ? ms_metrics_registry_render(r, len) : NULL;
    ms_metrics_registry_free(r);
    return t;
}

/* What `run`'s /metrics serves: the sets' registry (run/metric_sets.h). */
static inline char *metrics_render_run(ms_metric_sets *s, size_t *len) {
    return ms_metrics_registry_render(s->registry, len);
}

/* What `deschedule`'s /metrics serves (run/deschedule.c's registry): its
 * metrics, then the leader gauge. */
static inline char *metrics_render_desched(ms_desched_metrics *m, ms_leader_metrics *leader, size_t *len) {
    ms_metrics_registry *r = ms_metrics_registry_new();
    char *t = r && ms_metrics_registry_add(r, ms_desched_metrics_collect, m) &&
                      ms_metrics_registry_add(r, ms_leader_metrics_collect, leader)
                  ? ms_metrics_registry_render(r, len)
                  : NULL;
    ms_metrics_registry_free(r);
    return t;
}

/* text with the value of each process_*, moonsched_threads and moonsched_heap_* sample
 * replaced with V (they are read from /proc); malloc'd. */
static inline char *metrics_without_process_figures(const char *text) {
    char *out = malloc(strlen(text) + 1), *o = out;
    for (const char *l = text; *l;) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) : strlen(l);
        if (strncmp(l, "process_", 8) == 0 || strncmp(l, "moonsched_threads ", 18) == 0 ||
            strncmp(l, "moonsched_heap_", 15) == 0) {
            const char *sp = l + n;
            while (sp > l && sp[-1] != ' ') sp--;
            memcpy(o, l, (size_t)(sp - l));
            o += sp - l;
            *o++ = 'V';
        } else {
            memcpy(o, l, n);
            o += n;
        }
        if (end) *o++ = '\n';
        l += n + (end ? 1 : 0);
    }
    *o = 0;
    return out;
}

static inline void metrics_fill_run(ms_metric_sets *s) {
    ms_metrics *m = s->scheduler;
    ms_metrics_attempt(m, 0, MS_ATTEMPT_SCHEDULED, 0.0005);
    ms_metrics_attempt(m, 0, MS_ATTEMPT_SCHEDULED, 0.004);
    ms_metrics_attempt(m, 1, MS_ATTEMPT_UNSCHEDULABLE, 20);
    ms_metrics_attempt(m, 1, MS_ATTEMPT_ERROR, -1);
    ms_metrics_pod_scheduled(m, 3);
    ms_metrics_preemption(m, 0);
    ms_metrics_preemption(m, 12);
    ms_metrics_set_pending(m, 4, 0, 1, 2);
    ms_authn_metrics_attempt(s->authn, MS_AUTHN_SUCCESS);
    ms_authn_metrics_attempt(s->authn, MS_AUTHN_THROTTLED);
    ms_metrics_binding(m, MS_BIND_OK);
    ms_metrics_binding(m, MS_BIND_CONFLICT);
    ms_metrics_bind_conflict(m, MS_BIND_CONFLICT_GATED);
    ms_api_metrics_request(s->api, 409);
    ms_api_metrics_request(s->api, 201);
    ms_api_metrics_request(s->api, 0);
    ms_api_metrics_events(s->api, 5, 1, 9);
    ms_policy_figures p[1] = {{.profile = "default-scheduler", .plugin = "lua:g\"pu", .disabled = true, .calls = 10,
                               .failures = 4, .budget_kills = 1, .reloads_ok = 2, .reloads_failed = 1}};
    ms_policy_metrics_set_policies(s->policies, p, 1);
    ms_shadow_figures sh[1] = {{.profile = "gpu", .policy = "lua:next", .agree = 7, .disagree = 3, .skipped = 5}};
    ms_policy_metrics_set_shadows(s->policies, sh, 1);
    ms_taint_eviction_metrics_deleted(s->taint_eviction, 0.3);
    ms_metrics_set_binds_in_flight(m, 5);
    ms_rest_client_metrics_set_host(s->rest, "https://127.0.0.1:6443/prefix");
    ms_rest_client_metrics_observe(s->rest, "POST", 201, 0.003);
    ms_rest_client_metrics_observe(s->rest, "GET", 0, 1.5);
    ms_rest_client_metrics_observe(s->rest, "GET", 200, -1);
    ms_rest_client_metrics_observe(s->rest, "PROPFIND", 405, 0.01);
    ms_leader_metrics_changed(s->leader, "kube-\"scheduler", true);
    char *text = strdup("# HELP scheduler_scheduler_cache_size Number of nodes, pods, and assumed (bound) pods in the scheduler cache.\n"
                        "# TYPE scheduler_scheduler_cache_size gauge\n"
                        "scheduler_scheduler_cache_size{type=\"nodes\"} 3\n");
    ms_metrics_set_scheduler_text(m, text, strlen(text));
}

static inline void metrics_fill_desched(ms_desched_metrics *m, ms_leader_metrics *leader) {
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "success", "LowNodeUtilization", "p", "default", "n1");
    ms_desched_metrics_evicted(m, "error", "PodLifeTime", "p", "we\"ird", "n2");
    ms_desched_metrics_loop(m, 0.02);
    ms_desched_metrics_loop(m, 700);
    ms_desched_metrics_strategy(m, "PodLifeTime", "p", 0.3);
    ms_desched_metrics_reload(m, "DeschedulerPolicy", false);
    ms_desched_metrics_reload(m, "lua:spread", true);
    ms_leader_metrics_changed(leader, "descheduler", true);
}

#endif
