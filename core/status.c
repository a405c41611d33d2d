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

static int cmp_reason(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return x == y ? 0 : strcmp(x, y);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The histogram entries "COUNT REASON", sorted as strings (upstream's
 * sortReasonsHistogram), joined with ", ". Reasons are compared by text:
 * nodes build their own copies (e.g. one taint reason per node). */
static int put_histogram(writer *w, const ms_status *st, uint32_t nst) {
    size_t nr = 0;
    for (uint32_t i = 0; i < nst; i++)
        if (st[i].code != MS_SUCCESS) nr += st[i].nreasons;
    if (nr == 0) return 0;
    const char **reasons = malloc(nr * sizeof *reasons);
    if (!reasons) return -1;
    size_t k = 0;
    for (uint32_t i = 0; i < nst; i++) {
        if (st[i].code == MS_SUCCESS) continue;
        for (uint32_t j = 0; j < st[i].nreasons; j++)
            reasons[k++] = st[i].reasons[j] ? st[i].reasons[j] : "";
    }
    qsort(reasons, nr, sizeof *reasons, cmp_reason);

    size_t ndistinct = 0, textlen = 0;
    for (size_t i = 0; i < nr; i++)
        if (i == 0 || cmp_reason(&reasons[i - 1], &reasons[i]) != 0) {
            ndistinct++;
            textlen += strlen(reasons[i]) + 24;
        }
    char **entries = malloc(ndistinct * sizeof *entries);
    char *text = malloc(textlen);
    if (!entries || !text) {
        free(entries);
        free(text);
        free(reasons);
        return -1;
    }
    char *p = text;
    size_t e = 0;
    for (size_t i = 0; i < nr;) {
        size_t j = i + 1;
        while (j < nr && cmp_reason(&reasons[i], &reasons[j]) == 0) j++;
        entries[e++] = p;
        p += sprintf(p, "%zu %s", j - i, reasons[i]) + 1;
        i = j;
    }
    qsort(entries, ndistinct, sizeof *entries, cmp_str);
    for (size_t i = 0; i < ndistinct; i++) {
        if (i) puts_(w, ", ");
        puts_(w, entries[i]);
    }
    free(entries);
    free(text);
    free(reasons);
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
