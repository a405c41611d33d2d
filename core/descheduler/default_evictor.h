/* DefaultEvictor, upstream's Filter and PreEvictionFilter of every
 * descheduler profile: which pods a strategy may evict at all. Never
 * mirror, static or terminating pods; by default protect DaemonSet pods,
 * system-critical pods (and pods at or above priorityThreshold), pods with
 * local storage, pods without an owner (failed bare pods included); the
 * extra protections PodsWithPVC, PodsWithoutPDB and PodsWithResourceClaims
 * when enabled;
 * labelSelector, minReplicas, minPodAge; the
 * descheduler.alpha.kubernetes.io/evict annotation overrides all of it. */
#ifndef MOONSCHED_DESCHEDULER_DEFAULT_EVICTOR_H
#define MOONSCHED_DESCHEDULER_DEFAULT_EVICTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/pod.h"
#include "moonsched/selector.h"

struct ms_desched_args_ctx;
typedef struct cJSON cJSON;

/* upstream's PodProtection names, as bits. */
enum {
    MS_PROTECT_LOCAL_STORAGE = 1u << 0,   /* PodsWithLocalStorage */
    MS_PROTECT_DAEMONSET = 1u << 1,       /* DaemonSetPods */
    MS_PROTECT_SYSTEM_CRITICAL = 1u << 2, /* SystemCriticalPods */
    MS_PROTECT_FAILED_BARE = 1u << 3,     /* FailedBarePods */
    MS_PROTECT_PVC = 1u << 4,             /* PodsWithPVC */
    MS_PROTECT_WITHOUT_PDB = 1u << 5,     /* PodsWithoutPDB */
    MS_PROTECT_RESOURCE_CLAIMS = 1u << 6, /* PodsWithResourceClaims */
};

/* scheduling.SystemCriticalPriority: system-cluster-critical's value, the
 * default priorityThreshold. */
#define MS_SYSTEM_CRITICAL_PRIORITY 2000000000

typedef enum ms_no_eviction_policy {
    MS_NO_EVICTION_UNSET = 0, MS_NO_EVICTION_PREFERRED, MS_NO_EVICTION_MANDATORY
} ms_no_eviction_policy;

typedef struct ms_default_evictor_args {
    uint32_t protections;          /* the effective MS_PROTECT_* set */
    bool has_priority_threshold;   /* priorityThreshold given (value or name) */
    int32_t priority_threshold;    /* pods at or above it are protected */
    /* priorityThreshold.name (MS_STR_NONE: none): a PriorityClass resolved
     * before each pass (ms_default_evictor_resolve). */
    ms_str priority_class;
    bool has_selector;
    ms_label_selector selector;    /* labelSelector: only matching pods */
    bool has_node_selector;
    ms_label_selector node_selector;   /* nodeSelector: nodes nodeFit considers */
    /* namespaceLabelSelector, applied (as upstream) when it has
     * matchLabels or matchExpressions: the pod's namespace must carry
     * matching labels. */
    bool has_namespace_selector;
    ms_label_selector namespace_selector;
    /* podProtections.config.PodsWithPVC.protectedStorageClasses: with
     * PodsWithPVC, only pods whose claims use one of these are protected
     * (none: every pod with a claim). */
    uint32_t nprotected_classes;
    ms_str *protected_classes;
    bool node_fit;
    uint32_t min_replicas;
    double min_pod_age;            /* seconds since status.startTime; 0: none */
    uint8_t no_eviction_policy;    /* ms_no_eviction_policy */
} ms_default_evictor_args;

/* upstream's defaults: the four default protections, threshold
 * MS_SYSTEM_CRITICAL_PRIORITY. */
void ms_default_evictor_defaults(ms_default_evictor_args *a);
/* The args of a DefaultEvictor pluginConfig entry, validated. */
ms_rc ms_default_evictor_decode(struct ms_desched_args_ctx *c, const cJSON *args,
                              ms_default_evictor_args *out);

/* A PriorityClass's value by name: false when the cluster has none of
 * that name. */
typedef bool (*ms_priority_class_fn)(void *ctx, ms_str name, int32_t *value);

/* Resolves priorityThreshold.name against the cluster's PriorityClasses,
 * as upstream's DefaultEvictor does when a profile is built; the two
 * built-in classes are known without them. MS_EINVAL with upstream's
 * message when the class does not exist. */
ms_rc ms_default_evictor_resolve(ms_default_evictor_args *a, const ms_interner *in, ms_priority_class_fn fn,
                                 void *ctx, ms_error *err);

/* What Filter needs besides the pod: the clock, the interner, and how many
 * pods an owner has (minReplicas). */
typedef struct ms_evictor_env {
    ms_interner *in;
    double now;
    uint32_t (*owner_pods)(void *ctx, const ms_owner_ref *owner);
    void *owner_ctx;
    /* Whether a PodDisruptionBudget selects the pod (PodsWithoutPDB). */
    bool (*has_pdb)(void *ctx, const ms_pod *p);
    void *pdb_ctx;
    /* The labels of a namespace, NULL when it is not known
     * (namespaceLabelSelector). */
    const ms_labels *(*namespace_labels)(void *ctx, ms_str ns);
    void *ns_ctx;
    /* A claim of the namespace: false when it is not known, else its
     * storage class at *cls (MS_STR_NONE: none) (protectedStorageClasses). */
    bool (*claim_class)(void *ctx, ms_str ns, ms_str claim, ms_str *cls);
    void *claim_ctx;
} ms_evictor_env;

/* Filter: NULL when the pod may be evicted, else upstream's reasons for
 * every check it fails, aggregated as upstream logs them: one alone ("pod
 * is a mirror pod": static text, or at buf when built for this pod, as
 * `pod using protected storage class "C"`), several in brackets ("[pod is
 * a mirror pod, pod does not have any ownerRefs]", at buf). */
const char *ms_default_evictor_filter(const ms_default_evictor_args *a, const ms_pod *p,
                                      const ms_evictor_env *env, char *buf, size_t n);

#endif
