/* `simulate --evictions`: the taint eviction timeline of a cluster file.
 * The NoExecute taints of its nodes and the tolerations of its bound pods
 * go through the taint eviction controller's own state and timers
 * (controllers/taint_eviction.h) on a virtual clock that starts at the
 * wall-clock time of the run (a taint with timeAdded counts from then, one
 * without from the start, as a controller started now would); each
 * eviction, in time order, is printed with why and where the scheduler
 * would place the pod again (the caller's `place`). Pods a taint never
 * evicts (tolerated for ever) are listed as staying. */
#ifndef MOONSCHED_SIMULATE_SIMULATE_EVICTIONS_H
#define MOONSCHED_SIMULATE_SIMULATE_EVICTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "moonsched/error.h"
#include "moonsched/node.h"
#include "moonsched/pod.h"
#include "moonsched/simulate.h"

typedef struct ms_eviction_timeline_options {
    const ms_interner *in;
    FILE *out;
    ms_output_format output;
    double start;                  /* wall-clock seconds: the virtual clock's zero */
    ms_node *const *nodes;
    uint32_t nnodes;
    ms_pod *const *pods;           /* bound pods, terminal ones excluded */
    uint32_t npods;
    /* Where pod would go once deleted `at` seconds after the start: the
     * node, or MS_STR_NONE with why (n bytes). */
    ms_str (*place)(void *ctx, const ms_pod *pod, double at, char *why, size_t n);
    void *ctx;
} ms_eviction_timeline_options;

/* Prints the timeline; *evicted gets the number of evictions. */
ms_rc ms_eviction_timeline(const ms_eviction_timeline_options *o, uint32_t *evicted, ms_error *err);

#endif
