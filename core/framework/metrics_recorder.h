/* The scheduling framework's metrics for one profile (upstream's
 * pkg/scheduler/metrics as the framework runtime records them):
 * scheduler_framework_extension_point_duration_seconds,
 * scheduler_plugin_execution_duration_seconds and
 * scheduler_plugin_evaluation_total.
 *
 * Owned and written by the scheduler thread only, no lock: the scheduler
 * renders them (ms_metrics_recorder_render) into text that it hands to
 * whoever serves /metrics. Plugin durations are sampled as upstream does
 * (one cycle in ten, upstream's pluginMetricsSamplePercent = 10; here every
 * tenth cycle rather than a random tenth, so that sampling draws nothing
 * from the scheduler's random source): outside sampled cycles a runner
 * pays one flag test per plugin call, and the per-node Filter loop none
 * (scheduler/schedule_one.c times the first nodes of a sampled pass). */
#ifndef MOONSCHED_FRAMEWORK_METRICS_RECORDER_H
#define MOONSCHED_FRAMEWORK_METRICS_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/prom.h"
#include "moonsched/config.h"
#include "moonsched/framework.h"
#include "moonsched/status.h"

/* ms_code values: Success .. Pending. */
#define MS_METRICS_NCODES 7
/* upstream pluginMetricsSamplePercent */
#define MS_PLUGIN_METRICS_SAMPLE_EVERY 10

typedef struct ms_metrics_recorder {
    ms_prom_histogram points[MS_EP_COUNT][MS_METRICS_NCODES];
    /* [MS_METRICS_NCODES] per (point, plugin index), allocated when first
     * sampled: most plugins run at two or three points. */
    ms_prom_histogram *plugins[MS_EP_COUNT][MS_MAX_PLUGINS];
    uint64_t evaluations[MS_EP_COUNT][MS_MAX_PLUGINS];
    uint32_t cycles;
} ms_metrics_recorder;

ms_metrics_recorder *ms_metrics_recorder_new(void);
void ms_metrics_recorder_free(ms_metrics_recorder *r);

/* Whether the cycle starting now records plugin durations. */
static inline bool ms_metrics_recorder_sample(ms_metrics_recorder *r) {
    return r->cycles++ % MS_PLUGIN_METRICS_SAMPLE_EVERY == 0;
}
/* One run of every plugin of a point, ending with `code`. */
void ms_metrics_recorder_point(ms_metrics_recorder *r, ms_extension_point ep, ms_code code, double seconds);
/* One plugin call in a sampled cycle. */
void ms_metrics_recorder_plugin(ms_metrics_recorder *r, ms_extension_point ep, uint32_t plugin, ms_code code,
                                double seconds);

/* upstream's extension_point label ("PreFilter", "Filter", ...). */
const char *ms_metrics_point_name(ms_extension_point ep);

/* The three families over n profiles (profile names, frameworks for the
 * plugin names, recorders), appended to b. plugin_execution_duration has no
 * profile label upstream: profiles that run the same plugin share a series. */
void ms_metrics_recorder_render(ms_buf *b, const char *const *profiles, const ms_framework *fws,
                                ms_metrics_recorder *const *recs, uint32_t n);

#endif
