/* `run`'s metric sets and their registry. See run/metric_sets.h. */
#include <stdlib.h>

#include "run/metric_sets.h"
#include "serving/process_metrics.h"

ms_metric_sets *ms_metric_sets_new(const char *const *profiles, uint32_t nprofiles, bool taint_eviction) {
    ms_metric_sets *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->scheduler = ms_metrics_new(profiles, nprofiles);
    s->authn = ms_authn_metrics_new();
    s->api = ms_api_metrics_new();
    s->leader = ms_leader_metrics_new();
    s->policies = ms_policy_metrics_new();
    s->taint_eviction = taint_eviction ? ms_taint_eviction_metrics_new() : NULL;
    s->rest = ms_rest_client_metrics_new();
    s->registry = ms_metrics_registry_new();
    ms_metrics_registry *r = s->registry;
    bool ok = s->scheduler && s->authn && s->api && s->leader && s->policies &&
              (s->taint_eviction || !taint_eviction) && s->rest && r &&
              ms_metrics_registry_add(r, ms_metrics_collect, s->scheduler) &&
              ms_metrics_registry_add(r, ms_authn_metrics_collect, s->authn) &&
              ms_metrics_registry_add(r, ms_api_metrics_collect, s->api) &&
              ms_metrics_registry_add(r, ms_leader_metrics_collect, s->leader) &&
              ms_metrics_registry_add(r, ms_policy_metrics_collect, s->policies) &&
              (!s->taint_eviction ||
               ms_metrics_registry_add(r, ms_taint_eviction_metrics_collect, s->taint_eviction)) &&
              ms_metrics_registry_add(r, ms_rest_client_metrics_collect, s->rest) &&
              ms_metrics_registry_add(r, ms_metrics_collect_scheduler_text, s->scheduler) &&
              ms_metrics_registry_add(r, ms_process_metrics_collect, NULL);
    if (!ok) {
        ms_metric_sets_free(s);
        return NULL;
    }
    return s;
}

void ms_metric_sets_free(ms_metric_sets *s) {
    if (!s) return;
    ms_metrics_registry_free(s->registry);
    ms_metrics_free(s->scheduler);
    ms_authn_metrics_free(s->authn);
    ms_api_metrics_free(s->api);
    ms_leader_metrics_free(s->leader);
    ms_policy_metrics_free(s->policies);
    ms_taint_eviction_metrics_free(s->taint_eviction);
    ms_rest_client_metrics_free(s->rest);
    free(s);
}
