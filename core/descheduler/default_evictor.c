/* DefaultEvictor: its args (the podProtections sets, the deprecated
 * evict* booleans that map onto them, priorityThreshold, minReplicas,
 * minPodAge, ...) with upstream's validation, and its Filter. */
#include "descheduler/default_evictor.h"

#include <string.h>

#include "descheduler/args.h"
#include "moonsched/config.h"

#define DEFAULT_PROTECTIONS                                                        \
    (MS_PROTECT_LOCAL_STORAGE | MS_PROTECT_SYSTEM_CRITICAL | MS_PROTECT_FAILED_BARE | \
     MS_PROTECT_DAEMONSET)
#define EXTRA_PROTECTIONS (MS_PROTECT_PVC | MS_PROTECT_WITHOUT_PDB | MS_PROTECT_RESOURCE_CLAIMS)

static const struct {
    const char *name;
    uint32_t bit;
} protection_names[] = {
    {"PodsWithLocalStorage", MS_PROTECT_LOCAL_STORAGE}, {"DaemonSetPods", MS_PROTECT_DAEMONSET},
    {"SystemCriticalPods", MS_PROTECT_SYSTEM_CRITICAL}, {"FailedBarePods", MS_PROTECT_FAILED_BARE},
    {"PodsWithPVC", MS_PROTECT_PVC},                    {"PodsWithoutPDB", MS_PROTECT_WITHOUT_PDB},
    {"PodsWithResourceClaims", MS_PROTECT_RESOURCE_CLAIMS},
};
#define NPROTECTIONS (sizeof protection_names / sizeof protection_names[0])

void ms_default_evictor_defaults(ms_default_evictor_args *a) {
    memset(a, 0, sizeof *a);
    a->protections = DEFAULT_PROTECTIONS;
    a->priority_threshold = MS_SYSTEM_CRITICAL_PRIORITY;
}

/* podProtections.extraEnabled / defaultDisabled: names into bits, with
 * upstream's messages for unknown and repeated names. */
static ms_rc protection_list(ms_desched_args_ctx *c, const cJSON *pp, const char *key,
                             uint32_t allowed, const char *valid, uint32_t *bits, uint32_t *count) {
    ms_desched_strs names;
    ms_rc rc = ms_desched_args_strs(c, pp, key, &names);
    if (rc != MS_OK) return rc;
    bool dup = false;
    for (uint32_t i = 0; i < names.n; i++) {
        const char *s = ms_str_get(c->in, names.v[i]);
        uint32_t bit = 0;
        for (size_t k = 0; k < NPROTECTIONS; k++)
            if (strcmp(protection_names[k].name, s) == 0) bit = protection_names[k].bit;
        if (!(bit & allowed))
            ms_desched_args_invalid(c, "invalid pod protection policy in %s: \"%s\". Valid options are: %s",
                                    strcmp(key, "extraEnabled") == 0 ? "ExtraEnabled" : "DefaultDisabled",
                                    s, valid);
        for (uint32_t j = 0; j < i; j++) dup |= names.v[j] == names.v[i];
        *bits |= bit & allowed;
    }
    if (dup)
        ms_desched_args_invalid(c, "PodProtections.%s contains duplicate entries",
                                strcmp(key, "extraEnabled") == 0 ? "ExtraEnabled" : "DefaultDisabled");
    *count = names.n;
    return MS_OK;
}

/* The deprecated booleans, as upstream's legacyGetPodProtections maps
 * them. Sets *any when one of them is true. */
static ms_rc legacy_protections(ms_desched_args_ctx *c, const cJSON *args, uint32_t *bits, bool *any) {
    static const struct {
        const char *key;
        uint32_t bit;
        bool protects_when_true;
    } legacy[] = {
        {"evictLocalStoragePods", MS_PROTECT_LOCAL_STORAGE, false},
        {"evictDaemonSetPods", MS_PROTECT_DAEMONSET, false},
        {"evictSystemCriticalPods", MS_PROTECT_SYSTEM_CRITICAL, false},
        {"evictFailedBarePods", MS_PROTECT_FAILED_BARE, false},
        {"ignorePvcPods", MS_PROTECT_PVC, true},
        {"ignorePodsWithoutPDB", MS_PROTECT_WITHOUT_PDB, true},
    };
    *bits = 0;
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) {
        bool v = false;
        ms_rc rc = ms_json_bool(c->r, legacy[i].key, ms_json_get(args, legacy[i].key), &v);
        if (rc != MS_OK) return rc;
        *any |= v;
        if (v == legacy[i].protects_when_true) *bits |= legacy[i].bit;
    }
    return MS_OK;
}

static ms_rc decode_protections(ms_desched_args_ctx *c, const cJSON *args, ms_default_evictor_args *out) {
    uint32_t legacy = 0, extra = 0, disabled = 0, nextra = 0, ndisabled = 0;
    bool deprecated = false;
    ms_rc rc = legacy_protections(c, args, &legacy, &deprecated);
    const cJSON *pp = ms_json_get(args, "podProtections");
    if (rc != MS_OK || (rc = ms_json_expect(c->r, "podProtections", pp, MS_JSON_OBJECT)) != MS_OK)
        return rc;
    if (pp) {
        size_t saved = ms_json_push(c->r, "podProtections");
        if ((rc = protection_list(c, pp, "extraEnabled", EXTRA_PROTECTIONS,
                                  "[PodsWithPVC PodsWithoutPDB PodsWithResourceClaims]", &extra,
                                  &nextra)) != MS_OK ||
            (rc = protection_list(c, pp, "defaultDisabled", DEFAULT_PROTECTIONS,
                                  "[PodsWithLocalStorage SystemCriticalPods FailedBarePods DaemonSetPods]",
                                  &disabled, &ndisabled)) != MS_OK)
            return rc;
        ms_json_pop(c->r, saved);
    }
    if (deprecated && (nextra || ndisabled))
        ms_desched_args_invalid(c, "cannot use Deprecated fields alongside PodProtections.ExtraEnabled "
                                   "or PodProtections.DefaultDisabled");
    out->protections = nextra || ndisabled ? (DEFAULT_PROTECTIONS & ~disabled) | extra : legacy;
    return MS_OK;
}

/* priorityThreshold {value | name}: a name resolves to a PriorityClass's
 * value; without the API only the two built-in classes are known. */
static ms_rc decode_priority(ms_desched_args_ctx *c, const cJSON *args, ms_default_evictor_args *out) {
    const cJSON *pt = ms_json_get(args, "priorityThreshold");
    ms_rc rc = ms_json_expect(c->r, "priorityThreshold", pt, MS_JSON_OBJECT);
    if (rc != MS_OK || !pt) return rc;
    size_t saved = ms_json_push(c->r, "priorityThreshold");
    const cJSON *vj = ms_json_get(pt, "value");
    const char *name = NULL;
    int64_t v = out->priority_threshold;
    if ((rc = ms_json_int(c->r, "value", vj, INT32_MIN, INT32_MAX, &v)) != MS_OK ||
        (rc = ms_json_string(c->r, "name", ms_json_get(pt, "name"), &name)) != MS_OK)
        return rc;
    ms_json_pop(c->r, saved);
    if (vj && name && *name) {
        ms_desched_args_invalid(c, "priority threshold misconfigured, only one of priorityThreshold fields can be set");
        return MS_OK;
    }
    if (name && *name) {
        if (strcmp(name, "system-cluster-critical") == 0) v = MS_SYSTEM_CRITICAL_PRIORITY;
        else if (strcmp(name, "system-node-critical") == 0) v = MS_SYSTEM_CRITICAL_PRIORITY + 1000;
        else ms_desched_args_invalid(c, "unable to get priority value from the priority class \"%s\"", name);
    }
    out->priority_threshold = (int32_t)v;
    return MS_OK;
}

static ms_rc decode_selectors(ms_desched_args_ctx *c, const cJSON *args, ms_default_evictor_args *out) {
    ms_desched_pod_scope scope = {0};
    const char *ns = NULL;
    ms_rc rc = ms_desched_args_selector(c, args, &scope);
    if (rc != MS_OK || (rc = ms_json_string(c->r, "nodeSelector", ms_json_get(args, "nodeSelector"), &ns)) != MS_OK)
        return rc;
    out->has_selector = scope.has_selector;
    out->selector = scope.selector;
    if (ns && *ns) {
        ms_error perr;
        out->has_node_selector = true;
        if (ms_label_selector_parse(ns, c->in, c->a, &out->node_selector, &perr) != MS_OK)
            ms_desched_args_invalid(c, "%s", perr.msg);
    }
    return MS_OK;
}

ms_rc ms_default_evictor_decode(ms_desched_args_ctx *c, const cJSON *args, ms_default_evictor_args *out) {
    ms_default_evictor_defaults(out);
    if (!args) return MS_OK;
    const char *age = NULL, *nep = NULL;
    ms_rc rc;
    if ((rc = decode_protections(c, args, out)) != MS_OK || (rc = decode_priority(c, args, out)) != MS_OK ||
        (rc = decode_selectors(c, args, out)) != MS_OK ||
        (rc = ms_json_bool(c->r, "nodeFit", ms_json_get(args, "nodeFit"), &out->node_fit)) != MS_OK ||
        (rc = ms_desched_args_uint(c, args, "minReplicas", NULL, &out->min_replicas)) != MS_OK ||
        (rc = ms_json_string(c->r, "minPodAge", ms_json_get(args, "minPodAge"), &age)) != MS_OK ||
        (rc = ms_json_string(c->r, "noEvictionPolicy", ms_json_get(args, "noEvictionPolicy"), &nep)) != MS_OK)
        return rc;
    if (age && !ms_parse_go_duration(age, &out->min_pod_age))
        return ms_json_fail(c->r, "minPodAge", "time: invalid duration \"%s\"", age);
    if (nep && *nep) {
        if (strcmp(nep, "Preferred") == 0) out->no_eviction_policy = MS_NO_EVICTION_PREFERRED;
        else if (strcmp(nep, "Mandatory") == 0) out->no_eviction_policy = MS_NO_EVICTION_MANDATORY;
        else ms_desched_args_invalid(c, "noEvictionPolicy accepts only [\"Preferred\" \"Mandatory\"] values");
    }
    return MS_OK;
}

/* ---- Filter ---- */

static const char *annotation(const ms_pod *p, ms_interner *in, const char *key) {
    ms_str k = ms_intern_find(in, key, strlen(key));
    return k ? ms_annotations_get(&p->meta.annotations, k) : NULL;
}

static bool owned_by_kind(const ms_pod *p, const ms_interner *in, const char *kind) {
    for (uint32_t i = 0; i < p->meta.nowners; i++)
        if (strcmp(ms_str_get(in, p->meta.owners[i].kind), kind) == 0) return true;
    return false;
}

static bool has_pvc(const ms_pod *p) {
    for (uint32_t i = 0; i < p->nvolumes; i++)
        if (p->volumes[i].kind == MS_VOL_PVC) return true;
    return false;
}

/* The protections in upstream's order of constraints. */
static const char *protection_reason(const ms_default_evictor_args *a, const ms_pod *p,
                                     const ms_evictor_env *env) {
    uint32_t on = a->protections;
    if (on & MS_PROTECT_SYSTEM_CRITICAL) {
        if (p->has_priority && p->priority >= MS_SYSTEM_CRITICAL_PRIORITY)
            return "pod has system critical priority and is protected against eviction";
        if (p->has_priority && p->priority >= a->priority_threshold)
            return "pod has higher priority than specified priority class threshold";
    }
    if (!(on & MS_PROTECT_FAILED_BARE)) {
        if (!p->meta.nowners && p->phase != MS_PHASE_FAILED)
            return "pod does not have any ownerRefs and is not in failed phase";
    } else if (!p->meta.nowners) {
        return "pod does not have any ownerRefs";
    }
    if ((on & MS_PROTECT_LOCAL_STORAGE) && p->has_local_storage)
        return "pod has local storage and is protected against eviction";
    if ((on & MS_PROTECT_DAEMONSET) && owned_by_kind(p, env->in, "DaemonSet"))
        return "daemonset pods are protected against eviction";
    if ((on & MS_PROTECT_PVC) && has_pvc(p)) return "pod with PVC is protected against eviction";
    if ((on & MS_PROTECT_WITHOUT_PDB) && !(env->has_pdb && env->has_pdb(env->pdb_ctx, p)))
        return "pod does not have a PodDisruptionBudget and is protected against eviction";
    return NULL;
}

const char *ms_default_evictor_filter(const ms_default_evictor_args *a, const ms_pod *p,
                                      const ms_evictor_env *env) {
    const char *evict = annotation(p, env->in, "descheduler.alpha.kubernetes.io/evict");
    if (evict) return NULL;
    if (a->no_eviction_policy == MS_NO_EVICTION_MANDATORY &&
        annotation(p, env->in, "descheduler.alpha.kubernetes.io/prefer-no-eviction"))
        return "pod has the prefer-no-eviction annotation and noEvictionPolicy is Mandatory";
    if (annotation(p, env->in, "kubernetes.io/config.mirror")) return "pod is a mirror pod";
    const char *source = annotation(p, env->in, "kubernetes.io/config.source");
    if (source && strcmp(source, "api") != 0) return "pod is a static pod";
    if (p->meta.deletion > 0) return "pod is terminating";
    const char *why = protection_reason(a, p, env);
    if (why) return why;
    if (a->has_selector && !ms_label_selector_matches(&a->selector, &p->meta.labels, env->in))
        return "pod labels do not match the labelSelector filter in the policy parameter";
    if (a->min_replicas > 1 && p->meta.nowners && env->owner_pods &&
        env->owner_pods(env->owner_ctx, &p->meta.owners[0]) < a->min_replicas)
        return "owner has fewer replicas than minReplicas";
    if (a->min_pod_age > 0 && env->now - p->meta.creation < a->min_pod_age)
        return "pod age is not older than MinPodAge";
    return NULL;
}
