/* One registry of metric families per command context (`run`'s,
 * `deschedule`'s), as client_golang's Registry: each metric set lives
 * beside what it measures and registers a collector, the function that
 * appends its families in the text format 0.0.4 (base/prom.h); /metrics
 * renders the registry and nothing else. The exposition is the
 * collectors' text in the order they registered, so that the order of the
 * families is the wiring's decision, not the endpoint's.
 *
 * Collectors are registered while the command is set up, before any
 * thread renders; each collector takes its own lock, if it has one, while
 * it renders. The registry itself is then read-only: rendering takes no
 * lock and recording a metric never goes through it. */
#ifndef MOONSCHED_BASE_METRICS_REGISTRY_H
#define MOONSCHED_BASE_METRICS_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef struct ms_metrics_registry ms_metrics_registry;

/* Appends ctx's families to b. */
typedef void (*ms_metrics_collector)(void *ctx, ms_buf *b);

ms_metrics_registry *ms_metrics_registry_new(void);
void ms_metrics_registry_free(ms_metrics_registry *r);
/* False when out of memory. */
bool ms_metrics_registry_add(ms_metrics_registry *r, ms_metrics_collector collect, void *ctx);
/* The exposition, malloc'd and NUL-terminated; NULL when out of memory. */
char *ms_metrics_registry_render(const ms_metrics_registry *r, size_t *len);

#endif
