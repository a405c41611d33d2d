/* Plugin results, with upstream's codes and its FailedScheduling message. */
#ifndef MOONSCHED_STATUS_H
#define MOONSCHED_STATUS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(default)

typedef enum ms_code {
    MS_SUCCESS = 0,
    MS_ERROR,
    MS_UNSCHEDULABLE,
    MS_UNSCHEDULABLE_AND_UNRESOLVABLE,
    MS_WAIT,
    MS_SKIP,
    MS_PENDING,
} ms_code;

#define MS_STATUS_MAX_REASONS 4

/* Reasons point at text that outlives the cycle: string literals, interned
 * strings, or text owned by a node or the framework. No allocation. */
typedef struct ms_status {
    uint8_t code;                  /* ms_code */
    uint8_t nreasons;
    int16_t plugin;                /* index of the plugin in its framework, -1 if none */
    const char *reasons[MS_STATUS_MAX_REASONS];
} ms_status;

static inline void ms_status_ok(ms_status *s) { s->code = MS_SUCCESS; s->nreasons = 0; s->plugin = -1; }
static inline ms_code ms_status_set(ms_status *s, ms_code code, const char *reason) {
    s->code = (uint8_t)code;
    s->nreasons = 0;
    if (reason) s->reasons[s->nreasons++] = reason;
    return code;
}
static inline void ms_status_add_reason(ms_status *s, const char *reason) {
    if (s->nreasons < MS_STATUS_MAX_REASONS) s->reasons[s->nreasons++] = reason;
}
const char *ms_code_str(ms_code c);   /* "Success", "Unschedulable", ... */

/* Builds upstream's FitError text from a per-node status array:
 * "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated
 * taint {key: value}." Reason counts are formatted "N reason" and sorted as
 * strings (upstream's sortReasonsHistogram). `statuses` holds one entry per
 * node that failed; `num_all_nodes` is the snapshot size. When
 * `prefilter_reason` is set (PreFilter rejected the pod) the message is
 * "0/N nodes are available: <reason>." Writes at most n bytes (NUL included)
 * and returns the length the full message needs. */
size_t ms_fit_error_message(char *buf, size_t n, uint32_t num_all_nodes,
                            const ms_status *statuses, uint32_t nstatuses,
                            const char *prefilter_reason);

#pragma GCC visibility pop

#endif
