/* Upstream's field sets for strict decoding: the DeschedulerPolicy of
 * descheduler/v1alpha2 and the args types of its plugins at v0.36
 * (pkg/api/v1alpha2/types.go and each plugin's types.go). A
 * field with no set below takes any value (maps such as thresholds,
 * matchLabels). A key given twice never gets here: the YAML reader
 * refuses it, in upstream's words. */
#include "descheduler/strict.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "base/buf.h"
#include "codec/field_set.h"

typedef ms_field field;

#define END {NULL, NULL}
#define TYPE_META {"apiVersion", NULL}, {"kind", NULL}

static const field requirement[] = {{"key", NULL}, {"operator", NULL}, {"values", NULL}, END};
static const field label_selector[] = {{"matchLabels", NULL}, {"matchExpressions", requirement}, END};
static const field namespaces[] = {{"include", NULL}, {"exclude", NULL}, END};
#define SCOPE {"namespaces", namespaces}, {"labelSelector", label_selector}

/* ---- DeschedulerPolicy ---- */

static const field plugin_set[] = {{"enabled", NULL}, {"disabled", NULL}, END};
static const field plugins[] = {{"presort", plugin_set}, {"sort", plugin_set}, {"deschedule", plugin_set},
                                {"balance", plugin_set}, {"filter", plugin_set},
                                {"preevictionfilter", plugin_set}, END};
/* args are checked apart, by their plugin's type. */
static const field plugin_config[] = {{"name", NULL}, {"args", NULL}, END};
static const field profile[] = {{"name", NULL}, {"pluginConfig", plugin_config}, {"plugins", plugins}, END};
static const field secret_ref[] = {{"namespace", NULL}, {"name", NULL}, END};
static const field auth_token[] = {{"secretReference", secret_ref}, END};
static const field prometheus[] = {{"url", NULL}, {"authToken", auth_token}, END};
static const field provider[] = {{"source", NULL}, {"prometheus", prometheus}, END};
static const field collector[] = {{"enabled", NULL}, END};
static const field policy[] = {TYPE_META,
                               {"profiles", profile},
                               {"nodeSelector", NULL},
                               {"maxNoOfPodsToEvictPerNode", NULL},
                               {"maxNoOfPodsToEvictPerNamespace", NULL},
                               {"maxNoOfPodsToEvictTotal", NULL},
                               {"evictionFailureEventNotification", NULL},
                               {"metricsCollector", collector},
                               {"metricsProviders", provider},
                               {"gracePeriodSeconds", NULL},
                               END};

/* ---- args ---- */

static const field threshold[] = {{"value", NULL}, {"name", NULL}, END};
static const field storage_class[] = {{"name", NULL}, END};
static const field pvc_config[] = {{"protectedStorageClasses", storage_class}, END};
static const field protections_config[] = {{"PodsWithPVC", pvc_config}, END};
static const field protections[] = {{"extraEnabled", NULL}, {"defaultDisabled", NULL},
                                    {"config", protections_config}, END};
static const field default_evictor[] = {
    TYPE_META, {"nodeSelector", NULL}, {"labelSelector", label_selector},
    {"namespaceLabelSelector", label_selector}, {"priorityThreshold", threshold}, {"nodeFit", NULL},
    {"minReplicas", NULL}, {"minPodAge", NULL}, {"noEvictionPolicy", NULL}, {"podProtections", protections},
    {"evictLocalStoragePods", NULL}, {"evictDaemonSetPods", NULL}, {"evictSystemCriticalPods", NULL},
    {"ignorePvcPods", NULL}, {"ignorePodsWithoutPDB", NULL}, {"evictFailedBarePods", NULL}, END};
static const field metrics_prometheus[] = {{"query", NULL}, END};
static const field metrics_utilization[] = {{"metricsServer", NULL}, {"source", NULL},
                                            {"prometheus", metrics_prometheus}, END};
static const field eviction_limits[] = {{"node", NULL}, END};
static const field low_node_utilization[] = {
    TYPE_META, {"useDeviationThresholds", NULL}, {"thresholds", NULL}, {"targetThresholds", NULL},
    {"numberOfNodes", NULL}, {"metricsUtilization", metrics_utilization}, {"evictableNamespaces", namespaces},
    {"evictionLimits", eviction_limits}, END};
static const field high_node_utilization[] = {TYPE_META, {"thresholds", NULL}, {"numberOfNodes", NULL},
                                              {"evictionModes", NULL}, {"evictableNamespaces", namespaces}, END};
static const field owner_kinds[] = {{"include", NULL}, {"exclude", NULL}, END};
static const field condition[] = {{"type", NULL}, {"status", NULL}, {"reason", NULL},
                                  {"minTimeSinceLastTransitionSeconds", NULL}, END};
static const field pod_life_time[] = {TYPE_META, SCOPE, {"ownerKinds", owner_kinds},
                                      {"maxPodLifeTimeSeconds", NULL}, {"states", NULL},
                                      {"conditions", condition}, {"exitCodes", NULL},
                                      {"includingInitContainers", NULL}, {"includingEphemeralContainers", NULL},
                                      END};
static const field remove_duplicates[] = {TYPE_META, {"namespaces", namespaces}, {"excludeOwnerKinds", NULL}, END};
static const field failed_pods[] = {TYPE_META, SCOPE, {"excludeOwnerKinds", NULL}, {"minPodLifetimeSeconds", NULL},
                                    {"reasons", NULL}, {"exitCodes", NULL}, {"includingInitContainers", NULL}, END};
static const field too_many_restarts[] = {TYPE_META, SCOPE, {"podRestartThreshold", NULL},
                                          {"includingInitContainers", NULL}, {"states", NULL}, END};
static const field anti_affinity[] = {TYPE_META, SCOPE, END};
static const field node_affinity[] = {TYPE_META, SCOPE, {"nodeAffinityType", NULL}, END};
static const field node_taints[] = {TYPE_META, SCOPE, {"includePreferNoSchedule", NULL}, {"excludedTaints", NULL},
                                    {"includedTaints", NULL}, END};
static const field topology_spread[] = {TYPE_META, SCOPE, {"constraints", NULL}, {"topologyBalanceNodeFit", NULL},
                                        END};

static const struct {
    const char *plugin;
    const field *fields;
} args_types[] = {
    {"DefaultEvictor", default_evictor},
    {"LowNodeUtilization", low_node_utilization},
    {"HighNodeUtilization", high_node_utilization},
    {"PodLifeTime", pod_life_time},
    {"RemoveDuplicates", remove_duplicates},
    {"RemoveFailedPods", failed_pods},
    {"RemovePodsHavingTooManyRestarts", too_many_restarts},
    {"RemovePodsViolatingInterPodAntiAffinity", anti_affinity},
    {"RemovePodsViolatingNodeAffinity", node_affinity},
    {"RemovePodsViolatingNodeTaints", node_taints},
    {"RemovePodsViolatingTopologySpreadConstraint", topology_spread},
};

/* ---- the walk ---- */

static void unknown(void *ctx, const char *path, const char *key, const char *const *names, size_t n) {
    (void)key, (void)names, (void)n;
    ms_buf *out = ctx;
    ms_buf_printf(out, "%sunknown field \"%s\"", out->len ? ", " : "", path);
}

static ms_rc report(const cJSON *obj, const field *fields, ms_error *err) {
    ms_buf out = {0};
    ms_field_walk w = {.unknown = unknown, .ctx = &out};
    ms_field_walk_object(&w, obj, fields, "");    /* a wrong type is the decoder's to report */
    ms_rc rc = MS_OK;
    if (out.failed) rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else if (out.len) rc = ms_error_set(err, MS_EINVAL, "strict decoding error: %s", out.data);
    ms_buf_free(&out);
    return rc;
}

ms_rc ms_desched_strict_policy(const cJSON *root, ms_error *err) { return report(root, policy, err); }

ms_rc ms_desched_strict_args(const char *plugin, const cJSON *args, ms_error *err) {
    for (size_t i = 0; i < sizeof args_types / sizeof args_types[0]; i++)
        if (strcmp(args_types[i].plugin, plugin) == 0) return report(args, args_types[i].fields, err);
    return MS_OK;
}
