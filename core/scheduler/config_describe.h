/* The effective configuration that `moonsched config check` prints and
 * `run` serves on /configz.
 *
 * The effective configuration is itself a KubeSchedulerConfiguration (v1):
 * every setting with its value after defaulting; per profile, each
 * extension point's plugins in execution order as the framework built them
 * (only the points a plugin implements; score weights resolved), written as
 * `disabled: [{name: '*'}]` plus the enabled list, so that reading the
 * output back gives the same profiles; pluginConfig args as written (the
 * plugins' own defaults are not spelt out), with NodeResourcesFit's
 * ignoredResources replaced by the extenders' ignoredByScheduler resources
 * as the scheduler does; extenders with their effective httpTimeout.
 * tlsConfig.keyData is not printed back (a placeholder says how long it
 * is). */
#ifndef MOONSCHED_SCHEDULER_CONFIG_DESCRIBE_H
#define MOONSCHED_SCHEDULER_CONFIG_DESCRIBE_H

#include <stddef.h>

#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/scheduler.h"

typedef struct cJSON cJSON;

/* The effective configuration of `c` as the scheduler `s` built it from c
 * (what ms_config_check returns; `run` serves it on /configz). NULL with
 * err set when out of memory or the extenders do not parse. */
cJSON *ms_config_describe(const ms_config *c, const ms_scheduler *s, ms_error *err);

/* Go's time.Duration.String() for a number of seconds ("1m30s", "1.5s",
 * "300ms", "0s"). */
void ms_format_go_duration(double seconds, char *buf, size_t n);

#endif
