#include "moonsched/labels.h"

#include <stdlib.h>

ms_str ms_labels_get(const ms_labels *l, ms_str key) {
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        ms_str k = l->items[mid].key;
        if (k == key) return l->items[mid].value;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    return MS_STR_NONE;
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
    uint32_t lo = 0, hi = a->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        ms_str k = a->items[mid].key;
        if (k == key) return a->items[mid].value;
        if (k < key) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}
