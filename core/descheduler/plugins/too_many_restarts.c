/* RemovePodsHavingTooManyRestarts: evicts pods whose containers (and init
 * containers with includingInitContainers) restarted podRestartThreshold
 * times or more, most restarts first on each node; with `states`, only
 * pods Running or with a container (an init container too with
 * includingInitContainers) waiting in CrashLoopBackOff, as listed. */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct restarts_args {
    ms_desched_pod_scope scope;
    int64_t threshold;
    bool including_init;
    bool running, crash_loop;
} restarts_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    restarts_args *a = out;
    ms_desched_strs states = {0};
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
                 (rc = ms_json_int(c->r, "podRestartThreshold", ms_json_get(args, "podRestartThreshold"),
                                   INT32_MIN, INT32_MAX, &a->threshold)) != MS_OK ||
                 (rc = ms_json_bool(c->r, "includingInitContainers", ms_json_get(args, "includingInitContainers"),
                                    &a->including_init)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "states", &states)) != MS_OK))
        return rc;
    if (a->threshold < 1) ms_desched_args_invalid(c, "invalid PodsHavingTooManyRestarts threshold");
    bool bad = false;
    for (uint32_t i = 0; i < states.n; i++) {
        const char *s = ms_str_get(c->in, states.v[i]);
        if (strcmp(s, "Running") == 0) a->running = true;
        else if (strcmp(s, "CrashLoopBackOff") == 0) a->crash_loop = true;
        else bad = true;
    }
    if (bad) ms_desched_args_invalid(c, "states must be one of [CrashLoopBackOff Running]");
    return MS_OK;
}

static int32_t total_restarts(const restarts_args *a, const ms_pod *p) {
    int64_t n = (int64_t)p->restarts + (a->including_init ? p->init_restarts : 0);
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

/* With includingInitContainers, an init container waiting in
 * CrashLoopBackOff matches the state too (upstream's
 * HasMatchingContainerWaitingState over initContainerStatuses). */
static bool init_crash_loop(const ms_desched_pass *ps, const ms_pod *p) {
    ms_str crash = ms_intern_find(ps->in, "CrashLoopBackOff", strlen("CrashLoopBackOff"));
    for (uint32_t i = 0; crash && i < p->ninit_reasons; i++)
        if (p->container_reasons[i] == crash) return true;
    return false;
}

static bool violates(const restarts_args *a, const ms_desched_pass *ps, const ms_pod *p) {
    if (total_restarts(a, p) < a->threshold) return false;
    if (!a->running && !a->crash_loop) return true;
    if (a->running && p->phase == MS_PHASE_RUNNING) return true;
    return a->crash_loop && (p->crash_loop_back_off || (a->including_init && init_crash_loop(ps, p)));
}

/* Per node, the pods with the most restarts first (upstream since v0.34:
 * it decides which go under maxNoOfPodsToEvictPerNode); equal counts keep
 * the node's order. */
static void sort_most_restarts_first(const restarts_args *a, ms_pod **pods, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        ms_pod *x = pods[i];
        int32_t rx = total_restarts(a, x);
        uint32_t j = i;
        for (; j > 0 && total_restarts(a, pods[j - 1]) < rx; j--) pods[j] = pods[j - 1];
        pods[j] = x;
    }
}

static void run(const void *args, ms_desched_pass *ps) {
    const restarts_args *a = args;
    ms_pod **pods = NULL;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        if (!ms_array_grow((void **)&pods, &cap, ni->npods, sizeof *pods)) {
            ps->failed = true;
            break;
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < ni->npods; k++)
            if (violates(a, ps, ni->pods[k]) && ms_desched_pod_filter(ps, &a->scope, ni->pods[k], ni->name))
                pods[n++] = ni->pods[k];
        sort_most_restarts_first(a, pods, n);
        for (uint32_t k = 0; k < n; k++) {
            ms_evict_result r = ms_desched_evict(ps, pods[k], ni->name, "pod has too many restarts");
            if (r == MS_EVICT_TOTAL_LIMIT) goto out;
            if (r == MS_EVICT_NODE_LIMIT) break;
        }
    }
out:
    free(pods);
}

const ms_desched_plugin_def ms_desched_remove_pods_having_too_many_restarts = {
    .name = "RemovePodsHavingTooManyRestarts",
    .deschedule = true,
    .args_size = sizeof(restarts_args),
    .decode = decode,
    .run = run,
};
