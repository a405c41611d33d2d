/* DefaultEvictor's Filter against upstream v0.36's TestDefaultEvictorFilter
 * table (defaultevictor_test.go), in our own data: each case a pod, the
 * evictor's args, what the cluster holds for it (its owner's pods, a
 * PodDisruptionBudget, its claims' classes), and whether it may go. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

/* The table leaves the fields a case does not use out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct filter_case {
    const char *name;         /* upstream's description */
    const char *meta;         /* metadata body after name and namespace */
    const char *spec;         /* spec after the containers */
    const char *status;
    const char *args;         /* DefaultEvictor args */
    bool evictable;           /* upstream's result */
    uint32_t owner_pods;      /* the pods of its owner (minReplicas) */
    bool pdb;                 /* a PodDisruptionBudget selects it */
    const char *differs;      /* a deliberate difference: why (evictable is then moonsched's) */
} filter_case;

#define OWNER "ownerReferences: [{apiVersion: v1, kind: Pod, name: o, uid: owner-uid}]"
#define RS "ownerReferences: [{apiVersion: v1, kind: ReplicaSet, name: replicaset-1}]"
#define SS "ownerReferences: [{apiVersion: v1, kind: StatefulSet, name: statefulset-1}]"
#define DS "ownerReferences: [{apiVersion: v1, kind: DaemonSet, name: daemonset-test, uid: daemonset-uid}]"
#define EVICT "annotations: {descheduler.alpha.kubernetes.io/evict: 'true'}"
#define MIRROR "annotations: {kubernetes.io/config.mirror: mirror}"
#define MIRROR_EVICT "annotations: {kubernetes.io/config.mirror: mirror, descheduler.alpha.kubernetes.io/evict: 'true'}"
#define SOFT "annotations: {descheduler.alpha.kubernetes.io/prefer-no-eviction: ''}"
#define LOCAL ", volumes: [{name: h, hostPath: {path: /x}}, {name: s, emptyDir: {}}]"
#define PVC(c) "{name: " c ", persistentVolumeClaim: {claimName: " c "}}"
#define RUNNING "phase: Running"
#define CRIT ", priority: 2000000000"
#define PROTECT(cls) "podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: " cls "}]}}}"

static const filter_case cases[] = {
    {"Failed pod eviction with no ownerRefs", "", "", "phase: Failed", "", false},
    {"Normal pod eviction with no ownerRefs and evictFailedBarePods enabled", "", "", RUNNING,
     "evictFailedBarePods: true", false},
    {"Failed pod eviction with no ownerRefs (evictFailedBarePods)", "", "", "phase: Failed", "evictFailedBarePods: true",
     true},
    {"Normal pod eviction with normal ownerRefs", OWNER, "", RUNNING, "", true},
    {"Normal pod eviction with normal ownerRefs and evict annotation", OWNER ", " EVICT, "", RUNNING, "", true},
    {"Normal pod eviction with normal ownerRefs and prefer-no-eviction annotation (preference)", OWNER ", " SOFT, "",
     RUNNING, "", true},
    {"Normal pod eviction with normal ownerRefs and prefer-no-eviction annotation (mandatory)", OWNER ", " SOFT, "",
     RUNNING, "noEvictionPolicy: Mandatory", false},
    {"Normal pod eviction with replicaSet ownerRefs", OWNER, "", RUNNING, "", true},
    {"Normal pod eviction with replicaSet ownerRefs and evict annotation", RS ", " EVICT, "", RUNNING, "", true},
    {"Normal pod eviction with statefulSet ownerRefs", OWNER, "", RUNNING, "", true},
    {"Normal pod eviction with statefulSet ownerRefs and evict annotation", SS ", " EVICT, "", RUNNING, "", true},
    {"Pod not evicted because it is bound to a PV and evictLocalStoragePods = false", OWNER, LOCAL, RUNNING, "", false},
    {"Pod is evicted because it is bound to a PV and evictLocalStoragePods = true", OWNER, LOCAL, RUNNING,
     "evictLocalStoragePods: true", true},
    {"Pod is evicted because it is bound to a PV and evictLocalStoragePods = false, but it has the evict annotation",
     OWNER ", " EVICT, LOCAL, RUNNING, "", true},
    {"Pod not evicted because it is part of a daemonSet", DS, "", RUNNING, "", false},
    {"Pod is evicted because it is part of a daemonSet, but it has the evict annotation", DS ", " EVICT, "", RUNNING,
     "", true},
    {"Pod not evicted because it is a mirror poddsa", OWNER ", " MIRROR, "", RUNNING, "", false},
    {"Pod is evicted because it is a mirror pod, but it has the evict annotation", OWNER ", " MIRROR_EVICT, "",
     RUNNING, "", true},
    {"Pod not evicted because it has system critical priority", OWNER, CRIT, RUNNING, "", false},
    {"Pod is evicted because it has system critical priority, but it has the evict annotation", OWNER ", " EVICT,
     CRIT, RUNNING, "", true},
    {"Pod not evicted because it has a priority higher than the configured priority threshold", OWNER,
     ", priority: 900", RUNNING, "priorityThreshold: {value: 800}", false},
    {"Pod is evicted because it has a priority higher than the configured priority threshold, but it has the evict "
     "annotation",
     OWNER ", " EVICT, ", priority: 900", RUNNING, "priorityThreshold: {value: 800}", true},
    {"Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true", OWNER, CRIT,
     RUNNING, "evictSystemCriticalPods: true", true},
    {"Pod is evicted because it has system critical priority, but evictSystemCriticalPods = true and it has the evict "
     "annotation",
     OWNER ", " EVICT, CRIT, RUNNING, "evictSystemCriticalPods: true", true},
    {"Pod is evicted because it has a priority higher than the configured priority threshold, but "
     "evictSystemCriticalPods = true",
     OWNER, ", priority: 900", RUNNING, "evictSystemCriticalPods: true, priorityThreshold: {value: 800}", true},
    {"Pod is evicted because it has a priority higher than the configured priority threshold, but "
     "evictSystemCriticalPods = true and it has the evict annotation",
     OWNER ", " EVICT, ", priority: 900", RUNNING, "evictSystemCriticalPods: true, priorityThreshold: {value: 800}",
     true},
    {"Pod with no tolerations running on normal node, all other nodes tainted, no PreEvictionFilter, should ignore "
     "nodeFit",
     OWNER, "", RUNNING, "nodeFit: true", true},
    {"minReplicas of 2, owner with 2 replicas, evicts", OWNER, "", RUNNING, "minReplicas: 2", true, 2},
    {"minReplicas of 3, owner with 2 replicas, no eviction", OWNER, "", RUNNING, "minReplicas: 3", false, 2},
    {"minReplicas of 2, multiple owners, no eviction",
     "ownerReferences: [{apiVersion: v1, kind: Pod, name: o, uid: owner-uid}, {apiVersion: v1, kind: Pod, name: o}]",
     "", RUNNING, "minReplicas: 2", true, 1},
    {"minPodAge of 50, pod created 10 minutes ago, no eviction", OWNER, "",
     "phase: Running, startTime: '2023-12-31T23:50:00Z'", "minPodAge: 50m", false},
    {"minPodAge of 50, pod created 60 minutes ago, evicts", OWNER, "",
     "phase: Running, startTime: '2023-12-31T23:00:00Z'", "minPodAge: 50m", true},
    {"nil minPodAge, pod created 60 minutes ago, evicts", OWNER, "", "phase: Running, startTime: '2023-12-31T23:00:00Z'",
     "", true},
    {"ignorePodsWithoutPDB, pod with no PDBs, no eviction", OWNER ", labels: {app: foo}", "", RUNNING,
     "ignorePodsWithoutPDB: true", false},
    {"ignorePodsWithoutPDB, pod with PDBs, evicts", OWNER ", labels: {app: foo}", "", RUNNING,
     "ignorePodsWithoutPDB: true", true, 0, true},
    {"ignorePvcPods is set, pod with PVC, not evicts", OWNER, ", volumes: [" PVC("foo") "]", RUNNING,
     "ignorePvcPods: true", false},
    {"ignorePvcPods is not set, pod with PVC, evicts", OWNER, ", volumes: [" PVC("foo") "]", RUNNING, "", true},
    {"Pod with local storage is evicted because 'PodsWithLocalStorage' is in DefaultDisabled", OWNER,
     ", volumes: [{name: local-storage, emptyDir: {}}]", RUNNING,
     "podProtections: {defaultDisabled: [PodsWithLocalStorage]}", true},
    {"DaemonSet pod is evicted because 'DaemonSetPods' is in DefaultDisabled", DS, "", RUNNING,
     "podProtections: {defaultDisabled: [DaemonSetPods]}", true},
    {"Pod with PVC is not evicted because 'PodsWithPVC' is in ExtraEnabled", OWNER, ", volumes: [" PVC("foo") "]",
     RUNNING, "podProtections: {extraEnabled: [PodsWithPVC]}", false},
    {"Pod without PDB is not evicted because 'PodsWithoutPDB' is in ExtraEnabled", OWNER, "", RUNNING,
     "podProtections: {extraEnabled: [PodsWithoutPDB]}", false},
    {"Pod with ResourceClaims is not evicted because 'PodsWithResourceClaims' is in ExtraEnabled", OWNER,
     ", resourceClaims: [{name: test-claim, resourceClaimName: test-resource-claim}]", RUNNING,
     "podProtections: {extraEnabled: [PodsWithResourceClaims]}", false},
    {"Pod using StorageClass is not evicted because 'PodsWithPVC' is in ExtraEnabled", OWNER,
     ", volumes: [" PVC("foo") "]", RUNNING, PROTECT("standard"), false},
    {"Pod using unprotected StorageClass is evicted even though 'PodsWithPVC' is in ExtraEnabled", OWNER,
     ", volumes: [" PVC("unprotected") "]", RUNNING, PROTECT("protected"), true},
    {"Pod using unexisting PVC is not evicted because we cannot determine if storage class is protected or not", OWNER,
     ", volumes: [" PVC("missing") "]", RUNNING, PROTECT("protected"), false},
    {"Pod using protected and unprotected StorageClasses is not evicted", OWNER,
     ", volumes: [" PVC("protected") ", " PVC("unprotected") "]", RUNNING, PROTECT("protected"), false},
};

static const filter_case *current;

static uint32_t owner_pods(void *ctx, const ms_owner_ref *o) {
    (void)ctx, (void)o;
    return current->owner_pods;
}

static bool has_pdb(void *ctx, const ms_pod *p) {
    (void)ctx, (void)p;
    return current->pdb;
}

/* The claims: "foo" of class standard, "protected" and "unprotected" of
 * their names' classes; any other does not exist. */
static bool claim_class(void *ctx, ms_str ns, ms_str claim, ms_str *cls) {
    ms_interner *in = ctx;
    (void)ns;
    const char *c = ms_str_get(in, claim);
    if (strcmp(c, "foo") == 0) return *cls = ms_intern_cstr(in, "standard"), true;
    if (strcmp(c, "protected") && strcmp(c, "unprotected")) return false;
    *cls = claim;
    return true;
}

static void test_upstream_table(void **state) {
    (void)state;
    size_t n = sizeof cases / sizeof cases[0];
    int agree = 0, differ = 0;
    for (size_t i = 0; i < n; i++) {
        const filter_case *c = current = &cases[i];
        dx_env e;
        dx_init(&e);
        char text[2048];
        snprintf(text, sizeof text,
                 "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                 "  pluginConfig:\n  - {name: DefaultEvictor, args: {%s}}\n", c->args);
        dx_policy(&e, text);
        snprintf(text, sizeof text,
                 "metadata: {name: p, namespace: default, uid: u1, creationTimestamp: '2023-12-31T23:00:00Z'%s%s}\n"
                 "spec: {containers: [{name: c, image: i}]%s}\nstatus: {%s}\n",
                 *c->meta ? ", " : "", c->meta, c->spec, c->status);
        ms_pod *p = fx_pod(&e.fx.d, text);
        ms_evictor_env env = {.in = e.fx.in, .now = DX_NOW, .owner_pods = owner_pods, .has_pdb = has_pdb,
                              .claim_class = claim_class, .claim_ctx = e.fx.in};
        char buf[512];
        const char *why = ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env, buf, sizeof buf);
        if ((why == NULL) != c->evictable)
            print_message("DefaultEvictor: %s: got %s, want %s\n", c->name, why ? why : "evictable",
                          c->evictable ? "evictable" : "protected");
        else if (c->differs) {
            differ++;
            print_message("DefaultEvictor: %s: differs on purpose: %s\n", c->name, c->differs);
        } else {
            agree++;
        }
        ms_pod_unref(p);
        dx_free(&e);
    }
    print_message("DefaultEvictor (Filter): %d of %zu upstream cases agree, %d differ on purpose\n", agree, n, differ);
    assert_int_equal(agree + differ, (int)n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upstream_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
