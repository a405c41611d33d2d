/* DefaultEvictor: its args (the podProtections sets, the deprecated
 * evict* booleans that map onto them, priorityThreshold, minReplicas,
 * minPodAge, ...) with upstream's validation, and its Filter. */
#include "descheduler/default_evictor.h"

#include <stdio.h>
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

/* podProtections.config.PodsWithPVC.protectedStorageClasses[].name. */
static ms_rc decode_protected_classes(ms_desched_args_ctx *c, const cJSON *pp, uint32_t extra,
                                     ms_default_evictor_args *out) {
    const cJSON *list = ms_json_get(ms_json_get(ms_json_get(pp, "config"), "PodsWithPVC"), "protectedStorageClasses");
    if (!cJSON_IsArray(list) || !cJSON_GetArraySize(list)) return MS_OK;
    uint32_t n = (uint32_t)cJSON_GetArraySize(list), i = 0;
    if (!(out->protected_classes = ms_arena_alloc(c->a, n * sizeof *out->protected_classes))) return ms_json_nomem(c->r);
    size_t saved = ms_json_push(c->r, "config.PodsWithPVC.protectedStorageClasses");
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        const char *name = NULL;
        size_t s2 = ms_json_push_index(c->r, i);
        ms_rc rc = ms_json_string(c->r, "name", ms_json_get(e, "name"), &name);
        if (rc != MS_OK) return rc;
        ms_json_pop(c->r, s2);
        if ((!name || !*name) && (extra & MS_PROTECT_PVC))
            ms_desched_args_invalid(c, "PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[%u] name cannot "
                                       "be empty", i);
        out->protected_classes[i++] = name && *name ? ms_intern(c->in, name, strlen(name)) : MS_STR_NONE;
    }
    ms_json_pop(c->r, saved);
    out->nprotected_classes = i;
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
                                  &disabled, &ndisabled)) != MS_OK ||
            (rc = decode_protected_classes(c, pp, extra, out)) != MS_OK)
            return rc;
        ms_json_pop(c->r, saved);
    }
    if (deprecated && (nextra || ndisabled))
        ms_desched_args_invalid(c, "cannot use Deprecated fields alongside PodProtections.ExtraEnabled "
                                   "or PodProtections.DefaultDisabled");
    out->protections = nextra || ndisabled ? (DEFAULT_PROTECTIONS & ~disabled) | extra : legacy;
    return MS_OK;
}

/* priorityThreshold {value | name}: a name is kept and resolved against
 * the cluster's PriorityClasses before each pass (upstream asks the API
 * when it builds the profile), so a policy loads without a cluster. */
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
    if (name && *name) out->priority_class = ms_intern(c->in, name, strlen(name));
    out->priority_threshold = (int32_t)v;
    out->has_priority_threshold = vj || (name && *name);
    return MS_OK;
}

static bool builtin_class(const char *name, int32_t *value) {
    if (strcmp(name, "system-cluster-critical") == 0) *value = MS_SYSTEM_CRITICAL_PRIORITY;
    else if (strcmp(name, "system-node-critical") == 0) *value = MS_SYSTEM_CRITICAL_PRIORITY + 1000;
    else return false;
    return true;
}

ms_rc ms_default_evictor_resolve(ms_default_evictor_args *a, const ms_interner *in, ms_priority_class_fn fn,
                                 void *ctx, ms_error *err) {
    if (a->priority_class == MS_STR_NONE) return MS_OK;
    const char *name = ms_str_get(in, a->priority_class);
    int32_t v;
    if ((fn && fn(ctx, a->priority_class, &v)) || builtin_class(name, &v)) {
        a->priority_threshold = v;
        return MS_OK;
    }
    return ms_error_set(err, MS_EINVAL,
                        "failed to get priority threshold: unable to get priority value from the priority class: "
                        "priorityclasses.scheduling.k8s.io \"%s\" not found", name);
}

static ms_rc decode_selectors(ms_desched_args_ctx *c, const cJSON *args, ms_default_evictor_args *out) {
    ms_desched_pod_scope scope = {0};
    const char *ns = NULL;
    ms_rc rc = ms_desched_args_selector(c, args, &scope);
    if (rc != MS_OK || (rc = ms_json_string(c->r, "nodeSelector", ms_json_get(args, "nodeSelector"), &ns)) != MS_OK)
        return rc;
    out->has_selector = scope.has_selector;
    out->selector = scope.selector;
    const cJSON *nsl = ms_json_get(args, "namespaceLabelSelector");
    if (nsl) {
        size_t saved = ms_json_push(c->r, "namespaceLabelSelector");
        rc = ms_label_selector_from_json(nsl, c->in, c->a, &out->namespace_selector, c->r->path, c->r->err);
        ms_json_pop(c->r, saved);
        if (rc != MS_OK) return rc;
        /* upstream applies it with matchLabels or matchExpressions (v0.36) */
        const cJSON *ml = ms_json_get(nsl, "matchLabels"), *me = ms_json_get(nsl, "matchExpressions");
        out->has_namespace_selector = (cJSON_IsObject(ml) && ml->child) || (cJSON_IsArray(me) && me->child);
        if (out->has_namespace_selector && out->namespace_selector.nothing)
            ms_desched_args_invalid(c, "unable to convert namespaceLabelSelector to label selector");
    }
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

/* The failing checks, collected as upstream's Filter collects its
 * errors: every check runs, in upstream's order. */
typedef struct failures {
    const char *msg[16];
    uint32_t n;
    char text[320];          /* the one message built for this pod */
} failures;

static void fail(failures *f, const char *msg) {
    if (f->n < sizeof f->msg / sizeof f->msg[0]) f->msg[f->n++] = msg;
}

/* protectedStorageClasses: why the pod's claims protect it, written at
 * buf, or false. A claim not found or without a class protects it (as
 * upstream, which cannot tell its class). */
static bool protected_class(const ms_default_evictor_args *a, const ms_pod *p, const ms_evictor_env *env,
                            char *buf, size_t n) {
    const char *ns = ms_str_get(env->in, p->meta.namespace_);
    ms_str protected_cls = MS_STR_NONE;
    /* every claim resolved first, as upstream gathers the classes */
    for (uint32_t i = 0; i < p->nvolumes; i++) {
        const ms_volume *v = &p->volumes[i];
        if (v->kind != MS_VOL_PVC) continue;
        const char *claim = ms_str_get(env->in, v->id);
        ms_str cls = MS_STR_NONE;
        if (!env->claim_class || !env->claim_class(env->claim_ctx, p->meta.namespace_, v->id, &cls)) {
            snprintf(buf, n, "failed to get persistent volume claim \"%s\"/\"%s\": persistentvolumeclaim \"%s\" not found",
                     ns, claim, claim);
            return true;
        }
        if (cls == MS_STR_NONE) {
            snprintf(buf, n, "failed to resolve storage class for pod \"%s\"/\"%s\"", ns, claim);
            return true;
        }
        for (uint32_t k = 0; k < a->nprotected_classes && protected_cls == MS_STR_NONE; k++)
            if (a->protected_classes[k] == cls) protected_cls = cls;
    }
    if (protected_cls == MS_STR_NONE) return false;
    snprintf(buf, n, "pod using protected storage class \"%s\"", ms_str_get(env->in, protected_cls));
    return true;
}

/* The protections in upstream's order of constraints. */
static void protections(const ms_default_evictor_args *a, const ms_pod *p, const ms_evictor_env *env,
                        failures *f) {
    uint32_t on = a->protections;
    if (on & MS_PROTECT_SYSTEM_CRITICAL) {
        if (p->has_priority && p->priority >= MS_SYSTEM_CRITICAL_PRIORITY)
            fail(f, "pod has system critical priority and is protected against eviction");
        if (a->has_priority_threshold && p->has_priority && p->priority >= a->priority_threshold)
            fail(f, "pod has higher priority than specified priority class threshold");
    }
    if (!(on & MS_PROTECT_FAILED_BARE)) {
        if (!p->meta.nowners && p->phase != MS_PHASE_FAILED)
            fail(f, "pod does not have any ownerRefs and is not in failed phase");
    } else if (!p->meta.nowners) {
        fail(f, "pod does not have any ownerRefs");
    }
    if ((on & MS_PROTECT_LOCAL_STORAGE) && p->has_local_storage)
        fail(f, "pod has local storage and is protected against eviction");
    if ((on & MS_PROTECT_DAEMONSET) && owned_by_kind(p, env->in, "DaemonSet"))
        fail(f, "daemonset pods are protected against eviction");
    if ((on & MS_PROTECT_PVC) && has_pvc(p)) {
        if (!a->nprotected_classes) fail(f, "pod with PVC is protected against eviction");
        else if (protected_class(a, p, env, f->text, sizeof f->text)) fail(f, f->text);
    }
    if ((on & MS_PROTECT_WITHOUT_PDB) && !(env->has_pdb && env->has_pdb(env->pdb_ctx, p)))
        fail(f, "pod does not have a PodDisruptionBudget and is protected against eviction");
    if ((on & MS_PROTECT_RESOURCE_CLAIMS) && p->nresource_claims)
        fail(f, "pod has ResourceClaims and descheduler is configured to protect ResourceClaims pods");
}

/* One message alone, several as apimachinery's aggregate error prints
 * them: "[a, b]", each message once. A message built for this pod is
 * copied to buf: f dies with the caller's frame. */
static const char *aggregate(const failures *f, char *buf, size_t n) {
    const char *uniq[sizeof f->msg / sizeof f->msg[0]];
    uint32_t nu = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        bool seen = false;
        for (uint32_t k = 0; k < nu && !seen; k++) seen = strcmp(uniq[k], f->msg[i]) == 0;
        if (!seen) uniq[nu++] = f->msg[i];
    }
    if (!nu) return NULL;
    if (nu == 1 && uniq[0] != f->text) return uniq[0];
    if (nu == 1) {
        snprintf(buf, n, "%s", f->text);
        return buf;
    }
    size_t len = (size_t)snprintf(buf, n, "[");
    for (uint32_t i = 0; i < nu && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", uniq[i]);
    if (len < n) snprintf(buf + len, n - len, "]");
    return buf;
}

const char *ms_default_evictor_filter(const ms_default_evictor_args *a, const ms_pod *p,
                                      const ms_evictor_env *env, char *buf, size_t n) {
    const char *evict = annotation(p, env->in, "descheduler.alpha.kubernetes.io/evict");
    if (evict) return NULL;
    if (a->no_eviction_policy == MS_NO_EVICTION_MANDATORY &&
        annotation(p, env->in, "descheduler.alpha.kubernetes.io/prefer-no-eviction"))
        return "pod has the prefer-no-eviction annotation and noEvictionPolicy is Mandatory";
    failures f = {0};
    if (annotation(p, env->in, "kubernetes.io/config.mirror")) fail(&f, "pod is a mirror pod");
    const char *source = annotation(p, env->in, "kubernetes.io/config.source");
    if (source && strcmp(source, "api") != 0) fail(&f, "pod is a static pod");
    if (p->meta.deletion > 0) fail(&f, "pod is terminating");
    protections(a, p, env, &f);
    if (a->has_selector && !ms_label_selector_matches(&a->selector, &p->meta.labels, env->in))
        fail(&f, "pod labels do not match the labelSelector filter in the policy parameter");
    /* upstream does not count the owners of a pod with several */
    if (a->min_replicas > 1 && p->meta.nowners == 1 && env->owner_pods &&
        env->owner_pods(env->owner_ctx, &p->meta.owners[0]) < a->min_replicas)
        fail(&f, "owner has fewer replicas than minReplicas");
    /* from status.startTime, as upstream: a pod not started yet is young */
    if (a->min_pod_age > 0 && (p->start_time <= 0 || env->now - p->start_time < a->min_pod_age))
        fail(&f, "pod age is not older than MinPodAge");
    return aggregate(&f, buf, n);
}
