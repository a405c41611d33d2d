/* Label sets and annotations, sorted by key id so that lookups are binary
 * searches and subset tests one merge pass. */
#include "moonsched/labels.h"

#include <stdlib.h>

/* Index of key among n items sorted by key, each item `stride` bytes and
 * starting with its key; -1 when absent. */
static int64_t find_key(const void *items, size_t stride, uint32_t n, ms_str key) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        ms_str k = *(const ms_str *)((const char *)items + (size_t)mid * stride);
        if (k == key) return mid;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

ms_str ms_labels_get(const ms_labels *l, ms_str key) {
    int64_t i = find_key(l->items, sizeof *l->items, l->n, key);
    return i < 0 ? MS_STR_NONE : l->items[i].value;
}

/* Insertion sort: label sets are small, and it keeps equal keys in input
 * order so that "last one wins" below is well defined. */
void ms_labels_sort(ms_labels *l) {
    for (uint32_t i = 1; i < l->n; i++) {
        ms_label x = l->items[i];
        uint32_t j = i;
        while (j > 0 && l->items[j - 1].key > x.key) {
            l->items[j] = l->items[j - 1];
            j--;
        }
        l->items[j] = x;
    }
    uint32_t out = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        if (out > 0 && l->items[out - 1].key == l->items[i].key) l->items[out - 1] = l->items[i];
        else l->items[out++] = l->items[i];
    }
    l->n = out;
}

bool ms_labels_subset(const ms_labels *sub, const ms_labels *l) {
    /* Both sorted by key: one merge pass. */
    uint32_t j = 0;
    for (uint32_t i = 0; i < sub->n; i++) {
        ms_str k = sub->items[i].key;
        while (j < l->n && l->items[j].key < k) j++;
        if (j == l->n || l->items[j].key != k || l->items[j].value != sub->items[i].value)
            return false;
    }
    return true;
}

const char *ms_annotations_get(const ms_annotations *a, ms_str key) {
    int64_t i = find_key(a->items, sizeof *a->items, a->n, key);
    return i < 0 ? NULL : a->items[i].value;
}
