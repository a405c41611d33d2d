/* Upstream's RunFilterPluginsWithNominatedPods. Apart from framework.c
 * because it is the one runner that needs the queue's nominator and NodeInfo
 * arithmetic. */
#include "backend/queue.h"
#include "framework/runners.h"
#include "moonsched/framework.h"

/* The pod must leave room for nominated pods of at least its priority, other
 * than itself. */
static bool yields_to(const ms_pod *pod, const ms_pod *nominated) {
    return nominated->priority >= pod->priority && nominated->meta.uid_hash != pod->meta.uid_hash;
}

static ms_pod *const *nominees_of(const ms_cycle *c, const ms_node_info *ni, uint32_t *n) {
    const ms_handle *h = c->h;
    *n = 0;
    if (h && h->queue && ni->node && ms_queue_nominated_count(h->queue) > 0)
        return ms_queue_nominated_for(h->queue, ni->name, n);
    return NULL;
}

/* whole: the pass on the node itself runs the batch plugins too. */
static ms_code with_nominees(const ms_framework *fw, ms_cycle *c, const ms_node_info *ni,
                             ms_pod *const *nominated, uint32_t n, bool whole, ms_status *st) {
    const ms_handle *h = c->h;
    const ms_pod *pod = c->pod;
    uint32_t yield = 0;
    for (uint32_t i = 0; i < n; i++) yield += yields_to(pod, nominated[i]);
    if (yield == 0)
        return whole ? ms_framework_run_filter_node(fw, c, ni, st) : ms_framework_run_filter(fw, c, ni, st);

    /* Pass 1: with those pods on the node, as if already running: a dry
     * run, the PreFilter extensions told of each pod added. The scratch
     * copy borrows pods, so the next copy just overwrites them. */
    ms_node_info *tmp = h->scratch;
    const char *why = !tmp ? "no scratch NodeInfo for nominated pods" : NULL;
    if (!why && ms_node_info_copy_into(tmp, ni) != 0) why = "out of memory";
    if (why) {
        ms_status_set(st, MS_ERROR, why);
        st->plugin = -1;
        return MS_ERROR;
    }
    uint32_t outer = ms_framework_dry_begin(c);
    ms_code code = MS_SUCCESS;
    for (uint32_t i = 0; code == MS_SUCCESS && i < n; i++) {
        if (!yields_to(pod, nominated[i])) continue;
        if (ms_node_info_add_pod(tmp, nominated[i], h->in) != 0) {
            ms_status_set(st, MS_ERROR, "out of memory");
            st->plugin = -1;
            code = MS_ERROR;
        } else {
            code = ms_framework_run_pre_filter_extension(fw, c, true, &nominated[i], 1, tmp, st);
        }
    }
    if (code == MS_SUCCESS) code = ms_framework_run_filter_node(fw, c, tmp, st);
    ms_framework_dry_end(c, outer);
    if (code != MS_SUCCESS) return code;

    /* Pass 2: without them; filters such as pod affinity may need them absent. */
    return whole ? ms_framework_run_filter_node(fw, c, ni, st) : ms_framework_run_filter(fw, c, ni, st);
}

ms_code ms_framework_run_filter_with_nominated(const ms_framework *fw, ms_cycle *c,
                                               const ms_node_info *ni, ms_status *st) {
    uint32_t n;
    ms_pod *const *nominated = nominees_of(c, ni, &n);
    return with_nominees(fw, c, ni, nominated, n, false, st);
}

ms_code ms_framework_run_filter_with_nominees(const ms_framework *fw, ms_cycle *c,
                                              const ms_node_info *ni, ms_pod *const *nominated,
                                              uint32_t n, ms_status *st) {
    return with_nominees(fw, c, ni, nominated, n, false, st);
}

ms_code ms_framework_run_filter_node_with_nominated(const ms_framework *fw, ms_cycle *c,
                                                    const ms_node_info *ni, ms_status *st) {
    uint32_t n;
    ms_pod *const *nominated = nominees_of(c, ni, &n);
    return with_nominees(fw, c, ni, nominated, n, true, st);
}

ms_code ms_framework_run_filter_node_with_nominees(const ms_framework *fw, ms_cycle *c,
                                                   const ms_node_info *ni,
                                                   ms_pod *const *nominated, uint32_t n,
                                                   ms_status *st) {
    return with_nominees(fw, c, ni, nominated, n, true, st);
}
