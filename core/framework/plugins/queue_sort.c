/* PrioritySort: higher priority first, then the earlier queue timestamp. */
#include "builtin.h"
#include "backend/queue.h"

static bool priority_sort_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b) {
    (void)self;
    int32_t p1 = a->pod->priority, p2 = b->pod->priority;
    return p1 > p2 || (p1 == p2 && a->timestamp < b->timestamp);
}

const ms_plugin_ops ms_plugin_priority_sort = {
    .name = "PrioritySort",
    .less = priority_sort_less,
};
