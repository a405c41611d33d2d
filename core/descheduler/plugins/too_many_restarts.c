/* RemovePodsHavingTooManyRestarts: evicts pods whose containers (and init
 * containers with includingInitContainers) restarted podRestartThreshold
 * times or more; with `states`, only pods Running or in CrashLoopBackOff
 * as listed. */
#include <string.h>

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

static bool violates(const void *args, const ms_desched_pass *ps, const ms_pod *p, const ms_node_info *ni) {
    const restarts_args *a = args;
    (void)ps, (void)ni;
    int64_t n = p->restarts + (a->including_init ? p->init_restarts : 0);
    if (n < a->threshold) return false;
    if (!a->running && !a->crash_loop) return true;
    return (a->running && p->phase == MS_PHASE_RUNNING) || (a->crash_loop && p->crash_loop_back_off);
}


static void run(const void *args, ms_desched_pass *ps) {
    ms_desched_evict_violating(ps, args, &((const restarts_args *)args)->scope, violates, "pod has too many restarts");
}

const ms_desched_plugin_def ms_desched_remove_pods_having_too_many_restarts = {
    .name = "RemovePodsHavingTooManyRestarts",
    .deschedule = true,
    .args_size = sizeof(restarts_args),
    .decode = decode,
    .run = run,
};
