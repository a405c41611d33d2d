#include "moonsched/status.h"

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

/* A reason and how many times it was given. */
typedef struct tally {
    const char *reason;
    size_t count;
} tally;

static int cmp_tally(const void *a, const void *b) {
    const char *x = ((const tally *)a)->reason, *y = ((const tally *)b)->reason;
    return x == y ? 0 : strcmp(x, y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The histogram entries "COUNT REASON", sorted as strings (upstream's
 * sortReasonsHistogram), joined with ", ". Reasons are compared by text:
 * nodes build their own copies (e.g. one taint reason per node). Most nodes
 * give a reason that a few others gave just before (the same literal or
 * interned text), so equal pointers are tallied as they come, against the
 * last few seen: the sort by text then handles a few entries per distinct
 * pointer run instead of one per node. */
static int put_histogram(writer *w, const ms_status *st, uint32_t nst) {
    size_t nr = 0;
    for (uint32_t i = 0; i < nst; i++)
        if (st[i].code != MS_SUCCESS) nr += st[i].nreasons;
    if (nr == 0) return 0;
    tally *t = malloc(nr * sizeof *t);
    if (!t) return -1;
    enum { RECENT = 8 };
    size_t recent[RECENT];
    size_t nt = 0, nrecent = 0, next = 0;
    for (uint32_t i = 0; i < nst; i++) {
        if (st[i].code == MS_SUCCESS) continue;
        for (uint32_t j = 0; j < st[i].nreasons; j++) {
            const char *r = st[i].reasons[j] ? st[i].reasons[j] : "";
            size_t k = 0;
            while (k < nrecent && t[recent[k]].reason != r) k++;
            if (k < nrecent) {
                t[recent[k]].count++;
                continue;
            }
            t[nt] = (tally){r, 1};
            recent[next] = nt++;
            next = (next + 1) % RECENT;
            if (nrecent < RECENT) nrecent++;
        }
    }
    qsort(t, nt, sizeof *t, cmp_tally);

    /* Equal texts (from different pointers) become one entry. */
    size_t ndistinct = 0, textlen = 0;
    for (size_t i = 0; i < nt; i++) {
        if (ndistinct && cmp_tally(&t[ndistinct - 1], &t[i]) == 0) {
            t[ndistinct - 1].count += t[i].count;
            continue;
        }
        t[ndistinct++] = t[i];
        textlen += strlen(t[i].reason) + 24;
    }
    char **entries = malloc(ndistinct * sizeof *entries);
    char *text = malloc(textlen);
    if (!entries || !text) {
        free(entries);
        free(text);
        free(t);
        return -1;
    }
    char *p = text;
    for (size_t i = 0; i < ndistinct; i++) {
        entries[i] = p;
        p += sprintf(p, "%zu %s", t[i].count, t[i].reason) + 1;
    }
    qsort(entries, ndistinct, sizeof *entries, cmp_str);
    for (size_t i = 0; i < ndistinct; i++) {
        if (i) puts_(w, ", ");
        puts_(w, entries[i]);
    }
    free(entries);
    free(text);
    free(t);
    return 1;
}

size_t ms_fit_error_message(char *buf, size_t n, uint32_t num_all_nodes,
                            const ms_status *statuses, uint32_t nstatuses,
                            const char *prefilter_reason) {
    writer w = {buf, n, 0};
    char head[48];
    snprintf(head, sizeof head, "0/%u nodes are available:", num_all_nodes);
    puts_(&w, head);
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
