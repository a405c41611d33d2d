/* The framework's metrics for one profile. See framework/metrics_recorder.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/metrics_recorder.h"

/* upstream: ExponentialBuckets(0.0001, 2, 12) for extension points,
 * ExponentialBuckets(0.00001, 1.5, 20) for plugins, the latter as Go
 * computes them (each bound the previous one times 1.5, rounded), so that
 * the le labels are upstream's to the last digit. */
static const double point_le[] = {0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032,
                                  0.0064, 0.0128, 0.0256, 0.0512, 0.1024, 0.2048};
static const double plugin_le[] = {
    1e-05, 1.5000000000000002e-05, 2.2500000000000005e-05, 3.375000000000001e-05,
    5.062500000000001e-05, 7.593750000000002e-05, 0.00011390625000000003, 0.00017085937500000006,
    0.0002562890625000001, 0.00038443359375000017, 0.0005766503906250003, 0.0008649755859375004,
    0.0012974633789062506, 0.0019461950683593758, 0.0029192926025390638, 0.004378938903808595,
    0.006568408355712893, 0.009852612533569338, 0.014778918800354007, 0.02216837820053101,
};
static const ms_prom_bounds point_bounds = {point_le, sizeof point_le / sizeof point_le[0]};
static const ms_prom_bounds plugin_bounds = {plugin_le, sizeof plugin_le / sizeof plugin_le[0]};

ms_metrics_recorder *ms_metrics_recorder_new(void) { return calloc(1, sizeof(ms_metrics_recorder)); }

void ms_metrics_recorder_free(ms_metrics_recorder *r) {
    if (!r) return;
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        for (int i = 0; i < MS_MAX_PLUGINS; i++) free(r->plugins[ep][i]);
    free(r);
}

static unsigned code_index(ms_code code) { return (unsigned)code < MS_METRICS_NCODES ? (unsigned)code : MS_ERROR; }

void ms_metrics_recorder_point(ms_metrics_recorder *r, ms_extension_point ep, ms_code code, double seconds) {
    if ((unsigned)ep >= MS_EP_COUNT) return;
    ms_prom_observe(&r->points[ep][code_index(code)], &point_bounds, seconds);
}

void ms_metrics_recorder_plugin(ms_metrics_recorder *r, ms_extension_point ep, uint32_t plugin, ms_code code,
                                double seconds) {
    if ((unsigned)ep >= MS_EP_COUNT || plugin >= MS_MAX_PLUGINS) return;
    ms_prom_histogram **h = &r->plugins[ep][plugin];
    if (!*h && !(*h = calloc(MS_METRICS_NCODES, sizeof **h))) return;   /* a lost sample */
    ms_prom_observe(&(*h)[code_index(code)], &plugin_bounds, seconds);
}

const char *ms_metrics_point_name(ms_extension_point ep) {
    static const char *const names[MS_EP_COUNT] = {
        [MS_EP_PRE_ENQUEUE] = "PreEnqueue", [MS_EP_QUEUE_SORT] = "QueueSort", [MS_EP_PRE_FILTER] = "PreFilter",
        [MS_EP_FILTER] = "Filter",          [MS_EP_POST_FILTER] = "PostFilter", [MS_EP_PRE_SCORE] = "PreScore",
        [MS_EP_SCORE] = "Score",            [MS_EP_RESERVE] = "Reserve",       [MS_EP_PERMIT] = "Permit",
        [MS_EP_PRE_BIND] = "PreBind",       [MS_EP_BIND] = "Bind",             [MS_EP_POST_BIND] = "PostBind",
    };
    return (unsigned)ep < MS_EP_COUNT ? names[ep] : "";
}

static void render_points(ms_buf *b, const char *const *profiles, ms_metrics_recorder *const *recs, uint32_t n) {
    char e[256], labels[512];
    ms_prom_header(b, "scheduler_framework_extension_point_duration_seconds", "histogram",
                   "Latency for running all plugins of a specific extension point.");
    for (uint32_t p = 0; p < n; p++)
        for (int ep = 0; ep < MS_EP_COUNT; ep++)
            for (int c = 0; c < MS_METRICS_NCODES; c++) {
                const ms_prom_histogram *h = &recs[p]->points[ep][c];
                if (!h->count) continue;
                snprintf(labels, sizeof labels, "extension_point=\"%s\",profile=\"%s\",status=\"%s\"",
                         ms_metrics_point_name((ms_extension_point)ep), ms_prom_escape(profiles[p], e, sizeof e),
                         ms_code_str((ms_code)c));
                ms_prom_put_histogram(b, "scheduler_framework_extension_point_duration_seconds", labels, h,
                                      &point_bounds);
            }
}

/* Plugin durations summed over the profiles that run the same plugin. */
static void render_plugins(ms_buf *b, const ms_framework *fws, ms_metrics_recorder *const *recs, uint32_t n) {
    char e[256], labels[512];
    ms_prom_header(b, "scheduler_plugin_execution_duration_seconds", "histogram",
                   "Duration for running a plugin at a specific extension point.");
    for (uint32_t p = 0; p < n; p++)
        for (int ep = 0; ep < MS_EP_COUNT; ep++)
            for (uint32_t i = 0; i < MS_MAX_PLUGINS; i++) {
                if (!recs[p]->plugins[ep][i]) continue;
                const char *name = ms_framework_plugin_name(&fws[p], (int32_t)i);
                bool seen = false;   /* rendered with an earlier profile's */
                for (uint32_t q = 0; q < p && !seen; q++)
                    for (uint32_t j = 0; j < MS_MAX_PLUGINS && !seen; j++)
                        seen = recs[q]->plugins[ep][j] &&
                               strcmp(ms_framework_plugin_name(&fws[q], (int32_t)j), name) == 0;
                if (seen) continue;
                for (int c = 0; c < MS_METRICS_NCODES; c++) {
                    ms_prom_histogram sum = recs[p]->plugins[ep][i][c];
                    for (uint32_t q = p + 1; q < n; q++)
                        for (uint32_t j = 0; j < MS_MAX_PLUGINS; j++)
                            if (recs[q]->plugins[ep][j] &&
                                strcmp(ms_framework_plugin_name(&fws[q], (int32_t)j), name) == 0)
                                ms_prom_merge(&sum, &recs[q]->plugins[ep][j][c]);
                    if (!sum.count) continue;
                    snprintf(labels, sizeof labels, "extension_point=\"%s\",plugin=\"%s\",status=\"%s\"",
                             ms_metrics_point_name((ms_extension_point)ep), ms_prom_escape(name, e, sizeof e),
                             ms_code_str((ms_code)c));
                    ms_prom_put_histogram(b, "scheduler_plugin_execution_duration_seconds", labels, &sum,
                                          &plugin_bounds);
                }
            }
}

static void render_evaluations(ms_buf *b, const char *const *profiles, const ms_framework *fws,
                               ms_metrics_recorder *const *recs, uint32_t n) {
    char e1[256], e2[256];
    ms_prom_header(b, "scheduler_plugin_evaluation_total", "counter",
                   "Number of attempts to schedule pods by each plugin and the extension point (available "
                   "only in PreFilter, Filter, PreScore, and Score).");
    for (uint32_t p = 0; p < n; p++)
        for (int ep = 0; ep < MS_EP_COUNT; ep++)
            for (uint32_t i = 0; i < MS_MAX_PLUGINS; i++) {
                uint64_t v = recs[p]->evaluations[ep][i];
                if (!v) continue;
                ms_buf_printf(b,
                              "scheduler_plugin_evaluation_total{extension_point=\"%s\",plugin=\"%s\","
                              "profile=\"%s\"} %llu\n",
                              ms_metrics_point_name((ms_extension_point)ep),
                              ms_prom_escape(ms_framework_plugin_name(&fws[p], (int32_t)i), e1, sizeof e1),
                              ms_prom_escape(profiles[p], e2, sizeof e2), (unsigned long long)v);
            }
}

void ms_metrics_recorder_render(ms_buf *b, const char *const *profiles, const ms_framework *fws,
                                ms_metrics_recorder *const *recs, uint32_t n) {
    render_points(b, profiles, recs, n);
    render_plugins(b, fws, recs, n);
    render_evaluations(b, profiles, fws, recs, n);
}
