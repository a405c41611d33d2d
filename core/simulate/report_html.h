/* `simulate --output html`: one self-contained HTML page (inline CSS, no
 * script, no external resource) with what ran (version, configuration,
 * inputs, seed), each node's utilisation before and after the run
 * (extended resources included), where each pod went, the unschedulable
 * pods grouped by reason, every node's Filter verdict or per-plugin scores
 * for the pods placed (as their cycle computed them) and for the pods left
 * pending (computed again), and a shadow run's disagreements. Long tables
 * come in pages of MS_REPORT_PAGE rows, each its own <details>, which the
 * browser lays out only when open or scrolled to. */
#ifndef MOONSCHED_SIMULATE_REPORT_HTML_H
#define MOONSCHED_SIMULATE_REPORT_HTML_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MS_REPORT_PAGE 500

/* An extended resource of a node: [0] allocatable, [1] before, [2] after. */
typedef struct ms_report_resource {
    const char *name;
    bool bytes;                    /* hugepages-*: in GiB, as memory */
    int64_t v[3];
} ms_report_resource;

typedef struct ms_report_node {
    const char *name;
    bool cordoned;
    /* [0] allocatable, [1] requested before the run, [2] after it */
    int64_t cpu[3], memory[3], pods[3];
    const ms_report_resource *extended;   /* those the node has or its pods request */
    uint32_t nextended;
} ms_report_node;

typedef struct ms_report_pod {
    const char *pod;               /* NAMESPACE/NAME */
    const char *node;              /* NULL: not placed */
    const char *state;             /* "scheduled", "unschedulable", "preempted", "gated" */
    const char *message;           /* the score text or why not */
} ms_report_pod;

typedef struct ms_report {
    const char *title;
    /* What ran: shown as given; NULL ones are left out. */
    const char *version;           /* "v0.1.0 (commit 1ffb955)" */
    const char *config;            /* the configuration file, or NULL: upstream's default profile */
    const char *inputs;            /* cluster files and generator spec */
    const char *policies;          /* --policy and --shadow files */
    uint64_t seed;                 /* the tie-breaking seed in effect */
    const char *const *extended;   /* extended resource columns, in order */
    uint32_t nextended;
    const ms_report_node *nodes;
    uint32_t nnodes;
    const ms_report_pod *pods;
    uint32_t npods;
    uint32_t preemptions;
    const cJSON *shadow;           /* ms_scheduler_shadow_json, or NULL */
    /* ms_scheduler_explain of pods left pending (an array), and how many
     * more were left out. */
    const cJSON *explain;
    uint32_t explain_left_out;
    /* Placed pods' placing cycles: [{"pod", "cycle": ms_scheduler_cycle_trace}],
     * and how many placed pods have none (beyond the bound). */
    const cJSON *placed;
    uint32_t placed_left_out;
} ms_report;

/* Writes the page; false when out of memory or the write failed. */
bool ms_report_html(FILE *out, const ms_report *r);

#endif
