/* RemovePodsViolatingNodeTaints: evicts pods that do not tolerate a
 * NoSchedule taint of their node (and PreferNoSchedule ones with
 * includePreferNoSchedule), minus excludedTaints or only includedTaints
 * ("key" or "key=value"). */
#include <string.h>

#include "api/toleration.h"
#include "descheduler/pass.h"
#include "descheduler/plugin.h"

typedef struct node_taints_args {
    ms_desched_pod_scope scope;
    bool include_prefer_no_schedule;
    bool has_included;
    ms_desched_strs excluded, included;
} node_taints_args;

static ms_rc decode(ms_desched_args_ctx *c, const cJSON *args, void *out) {
    node_taints_args *a = out;
    ms_rc rc;
    if ((rc = ms_desched_args_namespaces(c, args, "namespaces", &a->scope)) != MS_OK ||
        (rc = ms_desched_args_selector(c, args, &a->scope)) != MS_OK ||
        (rc = ms_json_bool(c->r, "includePreferNoSchedule", ms_json_get(args, "includePreferNoSchedule"),
                           &a->include_prefer_no_schedule)) != MS_OK ||
        (rc = ms_desched_args_strs(c, args, "excludedTaints", &a->excluded)) != MS_OK ||
        (rc = ms_desched_args_strs(c, args, "includedTaints", &a->included)) != MS_OK)
        return rc;
    /* A list given empty still restricts to nothing, as upstream's nil check. */
    a->has_included = ms_json_get(args, "includedTaints") != NULL;
    if (a->excluded.n && a->included.n)
        ms_desched_args_invalid(c, "either includedTaints or excludedTaints can be set, but not both");
    return MS_OK;
}

/* "key" or "key=value" (when the taint has a value) is in the list. */
static bool taint_listed(const ms_desched_strs *list, const ms_taint *t, const ms_interner *in) {
    const char *key = ms_str_get(in, t->key), *value = ms_str_get(in, t->value);
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < list->n; i++) {
        const char *e = ms_str_get(in, list->v[i]);
        if (strcmp(e, key) == 0) return true;
        if (*value && strncmp(e, key, klen) == 0 && e[klen] == '=' && strcmp(e + klen + 1, value) == 0)
            return true;
    }
    return false;
}

static bool taint_counts(const node_taints_args *a, const ms_taint *t, const ms_interner *in) {
    bool effect = t->effect == MS_EFFECT_NO_SCHEDULE ||
                  (a->include_prefer_no_schedule && t->effect == MS_EFFECT_PREFER_NO_SCHEDULE);
    return effect && !taint_listed(&a->excluded, t, in) &&
           (!a->has_included || taint_listed(&a->included, t, in));
}

static bool taints_violated(const node_taints_args *a, const ms_pod *p, const ms_node *n, const ms_interner *in) {
    for (uint32_t i = 0; i < n->ntaints; i++)
        if (taint_counts(a, &n->taints[i], in) &&
            !ms_tolerations_tolerate_taint(p->tolerations, p->ntolerations, &n->taints[i]))
            return true;
    return false;
}

static bool violates(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                          const ms_node_info *ni) {
    return taints_violated(args, p, ni->node, ps->in);
}

static void run(const void *args, ms_desched_pass *ps) {
    ms_desched_evict_violating(ps, args, &((const node_taints_args *)args)->scope, violates, "pod does not tolerate a taint of its node");
}

static const char *target_violation(const void *args, const ms_desched_pass *ps, const ms_pod *p,
                                    const ms_node_info *target) {
    return violates(args, ps, p, target) ? "it would not tolerate a taint of the node it lands on" : NULL;
}

const ms_desched_plugin_def ms_desched_remove_pods_violating_node_taints = {
    .name = "RemovePodsViolatingNodeTaints",
    .deschedule = true,
    .args_size = sizeof(node_taints_args),
    .decode = decode,
    .run = run,
    .target_violation = target_violation,
};
