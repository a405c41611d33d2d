/* Plugin results with upstream's codes, and the FailedScheduling message
 * built from a cycle's statuses. */
#include "moonsched/status.h"
#include "framework/reason_tally.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ms_code_str(ms_code c) {
    switch (c) {
    case MS_SUCCESS: return "Success";
    case MS_ERROR: return "Error";
    case MS_UNSCHEDULABLE: return "Unschedulable";
    case MS_UNSCHEDULABLE_AND_UNRESOLVABLE: return "UnschedulableAndUnresolvable";
    case MS_WAIT: return "Wait";
    case MS_SKIP: return "Skip";
    case MS_PENDING: return "Pending";
    }
    return "Unknown";
}

/* snprintf-style writer: keeps counting past the end of the buffer so that the
 * caller learns the length the whole message needs. */
typedef struct writer {
    char *buf;
    size_t cap, len;
} writer;

static void put(writer *w, const char *s, size_t n) {
    if (w->len < w->cap) {
        size_t room = w->cap - 1 - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

static void puts_(writer *w, const char *s) { put(w, s, strlen(s)); }

static size_t finish(writer *w) {
    if (w->cap) w->buf[w->len < w->cap ? w->len : w->cap - 1] = '\0';
    return w->len;
}

/* One distinct reason: its text, how many statuses gave it, and the count
 * formatted as upstream prints it. */
typedef struct reason_count {
    const char *text;
    size_t count;
    char num[24];
} reason_count;

/* Reasons are string literals or text a node or the interner owns, so most
 * equal texts share a pointer: past the tally's slots, the pointers are
 * counted in a small hash table (on the stack up to this many slots, grown
 * on the heap), which leaves few entries to compare by text. */
#define STACK_SLOTS 128

struct ms_reason_spill {
    reason_count *t;               /* mask + 1 slots; NULL until the first run */
    size_t mask, used;
    bool oom;                      /* counts lost: the message keeps its head alone */
    reason_count stack[STACK_SLOTS];
};

static size_t slot_of(const char *p, size_t mask) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 32) & mask;
}

static reason_count *spill_slot(reason_count *t, size_t mask, const char *p) {
    size_t i = slot_of(p, mask);
    while (t[i].text && t[i].text != p) i = (i + 1) & mask;
    return &t[i];
}

/* Kept at most half full: four times the slots, the entries moved over. */
static bool spill_grow(struct ms_reason_spill *s) {
    size_t slots = (s->mask + 1) * 4;
    reason_count *t = calloc(slots, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i <= s->mask; i++)
        if (s->t[i].text) *spill_slot(t, slots - 1, s->t[i].text) = s->t[i];
    if (s->t != s->stack) free(s->t);
    s->t = t;
    s->mask = slots - 1;
    return true;
}

void ms_reason_tally_overflow(ms_reason_tally *t) {
    struct ms_reason_spill *s = t->spill;
    if (!s) {
        t->full = true;
        return;
    }
    if (s->oom) return;
    if (!s->t) {
        memset(s->stack, 0, sizeof s->stack);
        s->t = s->stack;
        s->mask = STACK_SLOTS - 1;
    }
    reason_count *e = spill_slot(s->t, s->mask, t->run);
    if (!e->text) {
        if (2 * (s->used + 1) > s->mask + 1) {
            if (!spill_grow(s)) {
                s->oom = true;
                return;
            }
            e = spill_slot(s->t, s->mask, t->run);
        }
        e->text = t->run;
        e->count = 0;
        s->used++;
    }
    e->count += t->len;
}

static int cmp_text(const void *a, const void *b) {
    const reason_count *x = a, *y = b;
    return x->text == y->text ? 0 : strcmp(x->text, y->text);
}

/* Upstream sorts the formatted "COUNT REASON" strings. */
static int cmp_entry(const void *a, const void *b) {
    const reason_count *x = a, *y = b;
    const char *p = x->num, *q = y->num;
    while (*p && *p == *q) p++, q++;
    if (!*p && !*q) return strcmp(x->text, y->text);
    /* The counts differ here; where one ends, its ' ' sorts before any digit. */
    unsigned char c = *p ? (unsigned char)*p : ' ', d = *q ? (unsigned char)*q : ' ';
    return c < d ? -1 : 1;
}

/* The histogram entries "COUNT REASON" of the k counts by pointer in t,
 * sorted as strings (upstream's sortReasonsHistogram), joined with ", ".
 * Reasons are counted by text: nodes may build their own copies of one
 * text. */
static void put_entries(writer *w, reason_count *t, size_t k) {
    qsort(t, k, sizeof *t, cmp_text);
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (n && strcmp(t[n - 1].text, t[i].text) == 0) t[n - 1].count += t[i].count;
        else t[n++] = t[i];
    }
    for (size_t i = 0; i < n; i++) snprintf(t[i].num, sizeof t[i].num, "%zu", t[i].count);
    qsort(t, n, sizeof *t, cmp_entry);
    for (size_t i = 0; i < n; i++) {
        if (i) puts_(w, ", ");
        puts_(w, t[i].num);
        puts_(w, " ");
        puts_(w, t[i].text);
    }
}

/* " ENTRIES." from a flushed tally (and its spill table, whose entries
 * it moves: the table is done with), or nothing when it counted no
 * reason. */
static void put_tally(writer *w, const ms_reason_tally *t) {
    struct ms_reason_spill *s = t->spill;
    reason_count slots[MS_REASON_TALLY_SLOTS], *e = slots;
    size_t k = 0;
    if (s && s->used) {
        /* The spill's entries to its front; the slots after them fit, as
         * the table is at most half full and has more than twice as many
         * slots as the tally. */
        e = s->t;
        for (size_t i = 0; i <= s->mask; i++)
            if (e[i].text) e[k++] = e[i];
    }
    for (uint32_t i = 0; i < t->n; i++) e[k++] = (reason_count){.text = t->text[i], .count = t->count[i]};
    if (!k) return;
    puts_(w, " ");
    put_entries(w, e, k);
    puts_(w, ".");
}

static void put_head(writer *w, uint32_t num_all_nodes) {
    char head[48];
    snprintf(head, sizeof head, "0/%u nodes are available:", num_all_nodes);
    puts_(w, head);
}

size_t ms_fit_error_message_tally(char *buf, size_t n, uint32_t num_all_nodes, const ms_reason_tally *t) {
    writer w = {buf, n, 0};
    put_head(&w, num_all_nodes);
    put_tally(&w, t);
    return finish(&w);
}

size_t ms_fit_error_message(char *buf, size_t n, uint32_t num_all_nodes,
                            const ms_status *statuses, uint32_t nstatuses,
                            const char *prefilter_reason) {
    writer w = {buf, n, 0};
    put_head(&w, num_all_nodes);
    /* Upstream gives every node the PreFilter status; the message names it
     * once instead of repeating it per node. */
    if (prefilter_reason) {
        puts_(&w, " ");
        puts_(&w, prefilter_reason);
        puts_(&w, ".");
        return finish(&w);
    }
    struct ms_reason_spill spill;
    spill.t = NULL;
    spill.used = 0;
    spill.oom = false;
    ms_reason_tally t;
    ms_reason_tally_reset(&t);
    t.spill = &spill;
    for (uint32_t i = 0; i < nstatuses; i++)
        if (statuses[i].code != MS_SUCCESS) ms_reason_tally_add(&t, &statuses[i]);
    ms_reason_tally_flush(&t);
    /* Without memory for the counts, the head alone. */
    if (!spill.oom) put_tally(&w, &t);
    if (spill.t != spill.stack) free(spill.t);
    return finish(&w);
}
