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

static uint32_t yielding(const ms_pod *pod, ms_pod *const *nominated, uint32_t n) {
    uint32_t yield = 0;
    for (uint32_t i = 0; i < n; i++) yield += yields_to(pod, nominated[i]);
    return yield;
}

/* Pass 1 with policies in the Filter phase: a dry run of theirs on the
 * copy holding the nominated pods. Apart from the pass itself, which
 * every node with nominated pods takes, so that the pass keeps few values
 * live across its calls. */
static ms_code __attribute__((noinline))
policies_on_copy(const ms_framework *fw, ms_cycle *c, ms_node_info *tmp,
                 ms_pod *const *nominated, uint32_t n, ms_status *st) {
    uint32_t outer = ms_framework_dry_begin(c);
    ms_code code = MS_SUCCESS;
    /* The extensions hear of the pods once all are on the copy (the
     * order upstream's addNominatedPods calls AddPod in). */
    for (uint32_t i = 0; code == MS_SUCCESS && i < n; i++)
        if (yields_to(c->pod, nominated[i]))
            code = ms_framework_run_pre_filter_extension(fw, c, true, &nominated[i], 1, tmp, st);
    if (code == MS_SUCCESS) code = ms_framework_run_filter_node(fw, c, tmp, st);
    ms_framework_dry_end(c, outer);
    return code;
}

/* Pass 1 when every Filter plugin reads only the node, its pod count and
 * its built-in requests, and the pod requests no scalar resource: the
 * nominated pods are added to a shallow copy's count and requests alone
 * (sharing the node's arrays, which no such plugin reads), so the plugins
 * see the same values as on a full copy without one being made. No
 * PreFilter extension is configured, so none is to be told. */
static ms_code with_nominees_counted(const ms_framework *fw, ms_cycle *c, const ms_node_info *ni,
                                     ms_pod *const *nominated, uint32_t n, ms_status *st) {
    ms_node_info tmp = *ni;
    tmp.borrowed = true;
    tmp.scratch = true;
    for (uint32_t i = 0; i < n; i++) {
        const ms_pod *q = nominated[i];
        if (!yields_to(c->pod, q)) continue;
        tmp.npods++;
        for (int r = 0; r < MS_RES_NBUILTIN; r++) tmp.requested.v[r] += q->requests.v[r];
    }
    return ms_framework_run_filter(fw, c, &tmp, st);
}

/* Pass 1: with the nominated pods on the node, as if already running: a
 * dry run, the PreFilter extensions told of each pod added, the whole
 * Filter phase (the copy is in no batch). The scratch copy borrows pods,
 * so the next copy just overwrites them. Inlined in both callers: a call
 * per node with nominated pods showed in the preemption profile. */
__attribute__((always_inline)) static inline ms_code
with_nominees_added(const ms_framework *fw, ms_cycle *c, const ms_node_info *ni,
                    ms_pod *const *nominated, uint32_t n, ms_status *st) {
    const ms_handle *h = c->h;
    const ms_pod *pod = c->pod;
    if (!((fw->pod_reading_filters | fw->pre_filter_extensions) & ~c->skip_filter) &&
        pod->requests.nscalar == 0)
        return with_nominees_counted(fw, c, ni, nominated, n, st);
    ms_node_info *tmp = h->scratch;
    const char *why = !tmp ? "no scratch NodeInfo for nominated pods" : NULL;
    if (!why && ms_node_info_copy_into(tmp, ni) != 0) why = "out of memory";
    /* Its position lets position-indexed tables find the node without a
     * lookup by name; pointer-checked tables still refuse the copy. */
    if (!why) tmp->index = ni->index;
    for (uint32_t i = 0; !why && i < n; i++)
        if (yields_to(pod, nominated[i]) && ms_node_info_add_pod(tmp, nominated[i], h->in) != 0)
            why = "out of memory";
    if (why) {
        ms_status_set(st, MS_ERROR, why);
        st->plugin = -1;
        return MS_ERROR;
    }
    /* Without policies in the Filter phase this is no dry run of theirs:
     * the per-node runner is the whole phase. */
    if (!((fw->pre_filter_extensions | fw->batch_filters) & ~c->skip_filter))
        return ms_framework_run_filter(fw, c, tmp, st);
    return policies_on_copy(fw, c, tmp, nominated, n, st);
}

ms_code ms_framework_run_filter_with_nominated(const ms_framework *fw, ms_cycle *c,
                                               const ms_node_info *ni, ms_status *st) {
    uint32_t n;
    ms_pod *const *nominated = nominees_of(c, ni, &n);
    return ms_framework_run_filter_with_nominees(fw, c, ni, nominated, n, st);
}

/* Pass 2 runs without them; filters such as pod affinity may need them
 * absent. */
ms_code ms_framework_run_filter_with_nominees(const ms_framework *fw, ms_cycle *c,
                                              const ms_node_info *ni, ms_pod *const *nominated,
                                              uint32_t n, ms_status *st) {
    if (yielding(c->pod, nominated, n) == 0) return ms_framework_run_filter(fw, c, ni, st);
    ms_code code = with_nominees_added(fw, c, ni, nominated, n, st);
    if (code != MS_SUCCESS) return code;
    return ms_framework_run_filter(fw, c, ni, st);
}

ms_code ms_framework_run_filter_node_with_nominated(const ms_framework *fw, ms_cycle *c,
                                                    const ms_node_info *ni, ms_status *st) {
    uint32_t n;
    ms_pod *const *nominated = nominees_of(c, ni, &n);
    return ms_framework_run_filter_node_with_nominees(fw, c, ni, nominated, n, st);
}

ms_code ms_framework_run_filter_node_with_nominees(const ms_framework *fw, ms_cycle *c,
                                                   const ms_node_info *ni,
                                                   ms_pod *const *nominated, uint32_t n,
                                                   ms_status *st) {
    if (yielding(c->pod, nominated, n) == 0) return ms_framework_run_filter_node(fw, c, ni, st);
    ms_code code = with_nominees_added(fw, c, ni, nominated, n, st);
    if (code != MS_SUCCESS) return code;
    return ms_framework_run_filter_node(fw, c, ni, st);
}
