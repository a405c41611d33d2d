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
 * equal texts share a pointer: counting by pointer in a small hash table
 * (on the stack up to this many slots) leaves few entries to compare. */
#define STACK_SLOTS 128

static size_t slot_of(const char *p, size_t mask) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 32) & mask;
}

/* Adds one occurrence of p; false when the table is more than half full. */
static bool count_reason(reason_count *t, size_t mask, size_t *used, const char *p, size_t k) {
    size_t i = slot_of(p, mask);
    while (t[i].text && t[i].text != p) i = (i + 1) & mask;
    if (!t[i].text) {
        if (2 * (*used + 1) > mask + 1) return false;
        t[i].text = p;
        t[i].count = 0;
        (*used)++;
    }
    t[i].count += k;
    return true;
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

/* One pass counting every failing status's reasons into t (mask + 1
 * slots, zeroed); false when t filled up. Neighbouring nodes mostly fail
 * alike: a run of one pointer is counted locally and added once. */
static bool count_pass(const ms_status *st, uint32_t nst, reason_count *t, size_t mask,
                       size_t *used) {
    size_t n = 0, len = 0;
    const char *run = NULL;
    for (uint32_t i = 0; i < nst; i++) {
        const ms_status *s = &st[i];
        if (s->code == MS_SUCCESS) continue;
        const uint32_t nr = s->nreasons;
        for (uint32_t j = 0; j < nr; j++) {
            const char *r = s->reasons[j] ? s->reasons[j] : "";
            if (r == run) {
                len++;
                continue;
            }
            if (len && !count_reason(t, mask, &n, run, len)) return false;
            run = r;
            len = 1;
        }
    }
    if (len && !count_reason(t, mask, &n, run, len)) return false;
    *used = n;
    return true;
}

/* Counts reasons by pointer into t (mask + 1 slots, zeroed); when it
 * fills up, recounts into a bigger heap table. Returns the table in use (t
 * or a heap one the caller frees), NULL when out of memory. */
static reason_count *count_all(const ms_status *st, uint32_t nst, reason_count *t, size_t *mask,
                               size_t *used) {
    reason_count *heap = NULL;
    while (!count_pass(st, nst, t, *mask, used)) {
        size_t slots = (*mask + 1) * 4;
        free(heap);
        heap = t = calloc(slots, sizeof *t);
        if (!t) return NULL;
        *mask = slots - 1;
    }
    return t;
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

static int put_histogram(writer *w, const ms_status *st, uint32_t nst) {
    reason_count stack[STACK_SLOTS];
    memset(stack, 0, sizeof stack);
    size_t mask = STACK_SLOTS - 1, n = 0;
    reason_count *t = count_all(st, nst, stack, &mask, &n);
    if (!t) return -1;
    if (n == 0) {
        if (t != stack) free(t);
        return 0;
    }
    /* Entries to the front. */
    size_t k = 0;
    for (size_t i = 0; i <= mask; i++)
        if (t[i].text) t[k++] = t[i];
    put_entries(w, t, k);
    if (t != stack) free(t);
    return 1;
}

static void put_head(writer *w, uint32_t num_all_nodes) {
    char head[48];
    snprintf(head, sizeof head, "0/%u nodes are available:", num_all_nodes);
    puts_(w, head);
}

size_t ms_fit_error_message_tally(char *buf, size_t n, uint32_t num_all_nodes, const ms_reason_tally *t) {
    writer w = {buf, n, 0};
    put_head(&w, num_all_nodes);
    if (t->n) {
        reason_count e[MS_REASON_TALLY_SLOTS];
        for (uint32_t i = 0; i < t->n; i++) e[i] = (reason_count){.text = t->text[i], .count = t->count[i]};
        puts_(&w, " ");
        put_entries(&w, e, t->n);
        puts_(&w, ".");
    }
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
    size_t before = w.len;
    puts_(&w, " ");
    int r = put_histogram(&w, statuses, nstatuses);
    if (r > 0) {
        puts_(&w, ".");
    } else {
        /* No reasons (or no memory for them): keep the head alone. */
        w.len = before;
    }
    return finish(&w);
}
