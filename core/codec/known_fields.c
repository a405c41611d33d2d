/* The field names of core/v1 Pod and Node, as of Kubernetes 1.33, plus
 * those removed since that old files may still carry. */
#include "codec/known_fields.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"

#define N(a) (sizeof(a) / sizeof(a)[0])

static const char *const object_fields[] = {"apiVersion", "kind", "metadata", "spec", "status"};

static const char *const meta_fields[] = {
    "name",           "generateName",      "namespace",         "selfLink",
    "uid",            "resourceVersion",   "generation",        "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers",       "clusterName",       "managedFields",
};

static const char *const pod_spec_fields[] = {
    "volumes",          "initContainers",       "containers",          "ephemeralContainers",
    "restartPolicy",    "terminationGracePeriodSeconds", "activeDeadlineSeconds", "dnsPolicy",
    "nodeSelector",     "serviceAccountName",   "serviceAccount",      "automountServiceAccountToken",
    "nodeName",         "hostNetwork",          "hostPID",             "hostIPC",
    "shareProcessNamespace", "securityContext", "imagePullSecrets",    "hostname",
    "subdomain",        "affinity",             "schedulerName",       "tolerations",
    "hostAliases",      "priorityClassName",    "priority",            "dnsConfig",
    "readinessGates",   "runtimeClassName",     "enableServiceLinks",  "preemptionPolicy",
    "overhead",         "topologySpreadConstraints", "setHostnameAsFQDN", "os",
    "hostUsers",        "schedulingGates",      "resourceClaims",      "resources",
};

static const char *const container_fields[] = {
    "name",           "image",           "command",        "args",
    "workingDir",     "ports",           "envFrom",        "env",
    "resources",      "resizePolicy",    "restartPolicy",  "volumeMounts",
    "volumeDevices",  "livenessProbe",   "readinessProbe", "startupProbe",
    "lifecycle",      "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
    "securityContext", "stdin",          "stdinOnce",      "tty",
    "targetContainerName",   /* ephemeral containers */
};

static const char *const resources_fields[] = {"limits", "requests", "claims"};

static const char *const node_spec_fields[] = {
    "podCIDR", "podCIDRs", "providerID", "unschedulable", "taints", "configSource", "externalID",
};

static const char *const taint_fields[] = {"key", "value", "effect", "timeAdded"};
static const char *const toleration_fields[] = {"key", "operator", "value", "effect", "tolerationSeconds"};

typedef struct walk {
    void (*fn)(void *ctx, const char *msg);
    void *ctx;
    char path[256];
} walk;

static bool known(const char *name, const char *const *fields, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0) return true;
    return false;
}

/* The unknown keys of obj, named with the path to obj. */
static void check(walk *w, const cJSON *obj, const char *const *fields, size_t n) {
    if (!cJSON_IsObject(obj)) return;
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (!c->string || known(c->string, fields, n)) continue;
        const char *near = ms_suggest(c->string, fields, n);
        char msg[600];
        snprintf(msg, sizeof msg, "unknown field \"%s%s%.200s\"%s%s%s", w->path, *w->path ? "." : "", c->string,
                 near ? " (did you mean \"" : "", near ? near : "", near ? "\"?)" : "");
        w->fn(w->ctx, msg);
    }
}

/* The items of the list key of obj, each checked against fields. */
static void check_items(walk *w, const cJSON *obj, const char *key, const char *const *fields, size_t n,
                        const char *const *sub, size_t nsub, const char *subkey) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(list)) return;
    size_t base = strlen(w->path), i = 0;
    for (const cJSON *it = list->child; it; it = it->next, i++) {
        snprintf(w->path + base, sizeof w->path - base, "%s%s[%zu]", base ? "." : "", key, i);
        check(w, it, fields, n);
        if (sub) {
            size_t inner = strlen(w->path);
            snprintf(w->path + inner, sizeof w->path - inner, ".%s", subkey);
            check(w, cJSON_GetObjectItemCaseSensitive(it, subkey), sub, nsub);
        }
    }
    w->path[base] = '\0';
}

static void check_at(walk *w, const cJSON *obj, const char *key, const char *const *fields, size_t n) {
    size_t base = strlen(w->path);
    snprintf(w->path + base, sizeof w->path - base, "%s%s", base ? "." : "", key);
    check(w, cJSON_GetObjectItemCaseSensitive(obj, key), fields, n);
    w->path[base] = '\0';
}

void ms_unknown_fields(const char *kind, const cJSON *obj, void (*fn)(void *ctx, const char *msg), void *ctx) {
    bool pod = strcmp(kind, "Pod") == 0;
    if ((!pod && strcmp(kind, "Node") != 0) || !cJSON_IsObject(obj)) return;
    walk w = {.fn = fn, .ctx = ctx};
    check(&w, obj, object_fields, N(object_fields));
    check_at(&w, obj, "metadata", meta_fields, N(meta_fields));
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(obj, "spec");
    if (!pod) {
        check_at(&w, obj, "spec", node_spec_fields, N(node_spec_fields));
        snprintf(w.path, sizeof w.path, "spec");
        check_items(&w, spec, "taints", taint_fields, N(taint_fields), NULL, 0, NULL);
        return;
    }
    check_at(&w, obj, "spec", pod_spec_fields, N(pod_spec_fields));
    snprintf(w.path, sizeof w.path, "spec");
    static const char *const lists[] = {"containers", "initContainers", "ephemeralContainers"};
    for (size_t i = 0; i < N(lists); i++)
        check_items(&w, spec, lists[i], container_fields, N(container_fields), resources_fields, N(resources_fields),
                    "resources");
    check_items(&w, spec, "tolerations", toleration_fields, N(toleration_fields), NULL, 0, NULL);
}
