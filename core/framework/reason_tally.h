/* Failure reasons counted by text pointer, a run of one pointer added at
 * once (neighbouring nodes mostly fail alike): the one count behind the
 * FitError message. ms_fit_error_message fills one from the statuses; the
 * Filter pass with kept verdicts fills one as it copies each node's
 * status, so that the message need not go over every status again. Past
 * MS_REASON_TALLY_SLOTS distinct pointers the runs go to a spill table
 * when the tally has one (the message's own); without one the tally gives
 * up (`full`) and the message is counted from the statuses. */
#ifndef MOONSCHED_FRAMEWORK_REASON_TALLY_H
#define MOONSCHED_FRAMEWORK_REASON_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "moonsched/status.h"

#define MS_REASON_TALLY_SLOTS 16

/* Where the runs the slots have no room for go (status.c). */
struct ms_reason_spill;

typedef struct ms_reason_tally {
    const char *run;               /* the reason of the current run, counted at len */
    uint32_t len;
    uint32_t n;                    /* distinct pointers in text[] */
    bool full;
    struct ms_reason_spill *spill; /* NULL: a run past the slots makes the tally full */
    uint64_t plugins;              /* bits of the plugins the statuses name */
    int32_t plugin;                /* the last status's plugin (its bit is in) */
    const char *text[MS_REASON_TALLY_SLOTS];
    uint32_t count[MS_REASON_TALLY_SLOTS];
} ms_reason_tally;

static inline void ms_reason_tally_reset(ms_reason_tally *t) {
    t->run = NULL;
    t->len = 0;
    t->n = 0;
    t->full = false;
    t->spill = NULL;
    t->plugins = 0;
    t->plugin = INT32_MIN;         /* the first status takes the long way */
}

/* The current run, its pointer in none of the full slots: to the spill
 * table, or the tally is full. Rare, so not inline. */
void ms_reason_tally_overflow(ms_reason_tally *t);

/* Adds the current run to the counts. */
static inline void ms_reason_tally_flush(ms_reason_tally *t) {
    if (!t->len) return;
    uint32_t i = 0;
    while (i < t->n && t->text[i] != t->run) i++;
    if (i == t->n) {
        if (t->n == MS_REASON_TALLY_SLOTS) {
            ms_reason_tally_overflow(t);
            t->len = 0;
            return;
        }
        t->text[t->n] = t->run;
        t->count[t->n++] = 0;
    }
    t->count[i] += t->len;
    t->len = 0;
}

/* One failing status. Most are the last one's again: one reason, the
 * run's, from the same plugin. */
static inline void ms_reason_tally_add(ms_reason_tally *t, const ms_status *st) {
    if (st->nreasons == 1 && st->reasons[0] == t->run && st->plugin == t->plugin) {
        t->len++;
        return;
    }
    t->plugin = st->plugin;
    if (st->plugin >= 0 && st->plugin < 64) t->plugins |= 1ull << st->plugin;
    for (uint32_t j = 0; j < st->nreasons; j++) {
        const char *r = st->reasons[j] ? st->reasons[j] : "";
        if (r == t->run) {
            t->len++;
            continue;
        }
        ms_reason_tally_flush(t);
        t->run = r;
        t->len = 1;
    }
}

/* ms_fit_error_message (without a PreFilter reason) from a tally that is
 * not full, flushed: the same text as from the statuses it counted (the
 * same builder). */
size_t ms_fit_error_message_tally(char *buf, size_t n, uint32_t num_all_nodes, const ms_reason_tally *t);

#endif
