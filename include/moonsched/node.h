/* A decoded Node: immutable, reference counted, arena-owned like ms_pod. */
#ifndef MOONSCHED_NODE_H
#define MOONSCHED_NODE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/intern.h"
#include "moonsched/meta.h"
#include "moonsched/pod.h"
#include "moonsched/resources.h"

#pragma GCC visibility push(default)

typedef struct ms_taint {
    ms_str key;
    ms_str value;                  /* MS_STR_NONE when absent or empty */
    uint8_t effect;                /* ms_taint_effect */
    double time_added;             /* timeAdded (NoExecute taints), unix seconds; 0 when absent */
    /* Precomputed filter reason, upstream's text:
     * "node(s) had untolerated taint {key: value}" ("{key: }" when no value).
     * Interned text: nodes with equal taints share the pointer. */
    const char *reason;
} ms_taint;

typedef struct ms_container_image {
    uint32_t nnames;
    ms_str *names;                 /* normalized like pod images */
    int64_t size_bytes;
} ms_container_image;

typedef enum ms_condition_status { MS_COND_UNKNOWN = 0, MS_COND_TRUE, MS_COND_FALSE } ms_condition_status;

typedef struct ms_node_condition {
    ms_str type;
    uint8_t status;                /* ms_condition_status */
} ms_node_condition;

typedef struct ms_node {
    _Atomic int32_t refs;
    ms_arena arena;
    ms_object_meta meta;

    bool unschedulable;
    uint32_t ntaints;
    ms_taint *taints;
    ms_resources capacity;
    ms_resources allocatable;      /* when status.allocatable is absent: capacity */
    uint32_t nimages;
    ms_container_image *images;
    uint32_t nconditions;
    ms_node_condition *conditions;
    /* The object as decoded, compact JSON in the arena; NULL unless the
     * decoder had keep_raw. */
    const char *raw;
    size_t raw_len;
} ms_node;

static inline ms_node *ms_node_ref(ms_node *n) {
    atomic_fetch_add_explicit(&n->refs, 1, memory_order_relaxed);
    return n;
}
/* The struct is heap-allocated with refs == 1; fields live in its arena. */
ms_node *ms_node_alloc(void);
void ms_node_unref(ms_node *n);

#pragma GCC visibility pop

#endif
