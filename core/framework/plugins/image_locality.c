/* ImageLocality: favours nodes that already have the pod's images. Each
 * image present on the node counts its size times its spread (the fraction
 * of nodes that have it, so that a common image does not pull every pod to
 * the same few nodes); the sum is clamped to [23Mi, 1000Mi x containers]
 * and scaled to 0..100. Init containers count, as in current upstream. */
#include "builtin.h"
#include "backend/cache_snapshot.h"

#define MB (1024LL * 1024LL)
/* About the 10th and 90th percentile of compressed image sizes on registries. */
#define MIN_THRESHOLD (23 * MB)
#define MAX_CONTAINER_THRESHOLD (1000 * MB)

static int64_t scaled_image_score(const ms_image_state *is, uint32_t total_nodes) {
    double spread = (double)is->num_nodes / (double)total_nodes;
    return (int64_t)((double)is->size * spread);
}

/* upstream calculatePriority. */
static int64_t priority(int64_t sum, uint32_t ncontainers) {
    int64_t max = MAX_CONTAINER_THRESHOLD * (int64_t)ncontainers;
    if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD;
    else if (sum > max) sum = max;
    return MS_MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (max - MIN_THRESHOLD);
}

static ms_code il_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                        int64_t *scores, ms_status *st) {
    (void)self;
    (void)st;
    const ms_pod *pod = c->pod;
    uint32_t total = c->snap ? c->snap->nnodes : 0;
    int64_t none = priority(0, pod->nimages);
    for (uint32_t i = 0; i < n; i++) {
        /* A node that reports no images scores the floor without lookups. */
        if (nodes[i]->nimages == 0 || total == 0) {
            scores[i] = none;
            continue;
        }
        int64_t sum = 0;
        for (uint32_t k = 0; k < pod->nimages; k++) {
            if (pod->images[k] == MS_STR_NONE) continue;
            const ms_image_state *is = ms_node_info_image(nodes[i], pod->images[k]);
            if (is) sum += scaled_image_score(is, total);
        }
        scores[i] = priority(sum, pod->nimages);
    }
    return MS_SUCCESS;
}

/* A score plugin only: it never rejects a pod, so no event matters to it. */
const ms_plugin_ops ms_plugin_image_locality = {
    .name = "ImageLocality",
    .score = il_score,
    /* The spread's counts are the node's (the cache touches a node when
     * they change); the node count is in the memo's key. */
    .node_local = true,
};
