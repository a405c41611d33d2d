/* PodLifeTime: evicts pods older than maxPodLifeTimeSeconds (and, with
 * `states`, only those in one of the listed phases, pod reasons or
 * container reasons), the oldest first. */
#include <stdlib.h>
#include <string.h>

#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct pod_life_time_args {
    ms_desched_pod_scope scope;
    ms_desched_strs owner_include, owner_exclude;
    bool has_max;
    uint32_t max_seconds;
    ms_desched_strs states;
    bool including_init;
} pod_life_time_args;

static const char *const allowed_states[] = {
    "Running", "Pending", "Succeeded", "Failed", "Unknown",
    "NodeAffinity", "NodeLost", "Shutdown", "UnexpectedAdmissionError",
    "PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff",
    "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName",
    "OOMKilled", "Error", "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun",
    "StartError", NULL,
};

static ms_rc owner_kinds(ms_desched_args_ctx *c, const cJSON *args, pod_life_time_args *a) {
    const cJSON *ok = ms_json_get(args, "ownerKinds");
    ms_rc rc = ms_json_expect(c->r, "ownerKinds", ok, MS_JSON_OBJECT);
    if (rc != MS_OK || !ok) return rc;
    size_t saved = ms_json_push(c->r, "ownerKinds");
    if ((rc = ms_desched_args_strs(c, ok, "include", &a->owner_include)) != MS_OK ||
        (rc = ms_desched_args_strs(c, ok, "exclude", &a->owner_exclude)) != MS_OK)
        return rc;
    ms_json_pop(c->r, saved);
    if (a->owner_include.n && a->owner_exclude.n)
        ms_desched_args_invalid(c, "only one of Include/Exclude ownerKinds can be set");
    return MS_OK;
}

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    pod_life_time_args *a = out;
    ms_rc rc;
    if (args && ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
                 (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
                 (rc = owner_kinds(c, args, a)) != MS_OK ||
                 (rc = ms_desched_args_uint(c, args, "maxPodLifeTimeSeconds", &a->has_max, &a->max_seconds)) != MS_OK ||
                 (rc = ms_desched_args_strs(c, args, "states", &a->states)) != MS_OK ||
                 (rc = ms_json_bool(c->r, "includingInitContainers", ms_json_get(args, "includingInitContainers"),
                                    &a->including_init)) != MS_OK))
        return rc;
    for (const char *const *k = (const char *const[]){"conditions", "exitCodes", NULL}; *k; k++)
        if (args && ms_json_get(args, *k)) return ms_json_fail(c->r, *k, "not supported");
    for (uint32_t i = 0; i < a->states.n; i++)
        if (!ms_json_name_in(ms_str_get(c->in, a->states.v[i]), allowed_states)) {
            ms_desched_args_invalid(c, "states must be one of [CrashLoopBackOff Completed ContainerCannotRun "
                                       "ContainerCreating CreateContainerConfigError CreateContainerError "
                                       "DeadlineExceeded ErrImagePull Error Evicted Failed ImagePullBackOff "
                                       "InvalidImageName NodeAffinity NodeLost OOMKilled Pending "
                                       "PodInitializing Running Shutdown StartError Succeeded Unknown "
                                       "UnexpectedAdmissionError]");
            break;
        }
    if (!a->has_max && !a->states.n)
        ms_desched_args_invalid(c, "at least one filtering criterion must be specified "
                                   "(maxPodLifeTimeSeconds, states, conditions, or exitCodes)");
    return MS_OK;
}

static const char *const phase_names[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};

static bool in_states(const pod_life_time_args *a, const ms_pod *p, const ms_interner *in) {
    if (!a->states.n) return true;
    for (uint32_t i = 0; i < a->states.n; i++) {
        const char *s = ms_str_get(in, a->states.v[i]);
        if (strcmp(s, phase_names[p->phase]) == 0) return true;
        if (p->status_reason == a->states.v[i]) return true;
        for (uint32_t k = a->including_init ? 0 : p->ninit_reasons; k < p->ncontainer_reasons; k++)
            if (p->container_reasons[k] == a->states.v[i]) return true;
    }
    return false;
}

static bool owner_kind_ok(const pod_life_time_args *a, const ms_pod *p) {
    for (uint32_t i = 0; i < p->meta.nowners; i++) {
        if (ms_desched_strs_has(&a->owner_exclude, p->meta.owners[i].kind)) return false;
        if (a->owner_include.n && ms_desched_strs_has(&a->owner_include, p->meta.owners[i].kind)) return true;
    }
    return !a->owner_include.n;
}

typedef struct candidate {
    ms_pod *pod;
    ms_str node;
} candidate;

static int oldest_first(const void *x, const void *y) {
    const ms_pod *a = ((const candidate *)x)->pod, *b = ((const candidate *)y)->pod;
    if (a->meta.creation != b->meta.creation) return a->meta.creation < b->meta.creation ? -1 : 1;
    return 0;
}

static void run(const void *args, ms_desched_pass *ps) {
    const pod_life_time_args *a = args;
    uint32_t total = 0, n = 0;
    for (uint32_t i = 0; i < ps->nnodes; i++) total += ps->nodes[i]->npods;
    candidate *c = malloc(sizeof *c * (total ? total : 1));
    if (!c) {
        ps->failed = true;
        return;
    }
    for (uint32_t i = 0; i < ps->nnodes; i++) {
        ms_node_info *ni = ps->nodes[i];
        for (uint32_t k = 0; k < ni->npods; k++) {
            ms_pod *p = ni->pods[k];
            if (a->has_max && !(ps->now - p->meta.creation > (double)a->max_seconds)) continue;
            if (!in_states(a, p, ps->in) || !owner_kind_ok(a, p)) continue;
            if (ms_desched_pod_filter(ps, &a->scope, p, ni->name)) c[n++] = (candidate){p, ni->name};
        }
    }
    qsort(c, n, sizeof *c, oldest_first);
    for (uint32_t i = 0; i < n; i++)
        if (ms_desched_evict(ps, c[i].pod, c[i].node, "pod exceeds its lifetime") == MS_EVICT_TOTAL_LIMIT) break;
    free(c);
}

const ms_desched_plugin_def ms_desched_pod_life_time = {
    .name = "PodLifeTime",
    .deschedule = true,
    .args_size = sizeof(pod_life_time_args),
    .decode = decode,
    .run = run,
};
