/* `simulate --output html`: one self-contained HTML page (inline CSS, no
 * script, no external resource) with each node's utilisation before and
 * after the run, where each pod went, the unschedulable pods grouped by
 * reason, and a shadow run's disagreements. */
#ifndef MOONSCHED_CMD_REPORT_HTML_H
#define MOONSCHED_CMD_REPORT_HTML_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ms_report_node {
    const char *name;
    bool cordoned;
    /* [0] allocatable, [1] requested before the run, [2] after it */
    int64_t cpu[3], memory[3], pods[3];
} ms_report_node;

typedef struct ms_report_pod {
    const char *pod;               /* NAMESPACE/NAME */
    const char *node;              /* NULL: not placed */
    const char *state;             /* "scheduled", "unschedulable", "preempted", "gated" */
    const char *message;           /* the score text or why not */
} ms_report_pod;

typedef struct ms_report {
    const char *title;
    const ms_report_node *nodes;
    uint32_t nnodes;
    const ms_report_pod *pods;
    uint32_t npods;
    uint32_t preemptions;
    const cJSON *shadow;           /* ms_scheduler_shadow_json, or NULL */
} ms_report;

/* Writes the page; false when out of memory or the write failed. */
bool ms_report_html(FILE *out, const ms_report *r);

#endif
