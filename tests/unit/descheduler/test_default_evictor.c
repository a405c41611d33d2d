/* DefaultEvictor's Filter: upstream's table of which pods may go, in our
 * own cases. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

typedef struct evictor_case {
    const char *what;
    const char *pod;          /* YAML */
    const char *args;         /* DefaultEvictor args (flow mapping body) */
    const char *reason;       /* NULL: evictable */
} evictor_case;

#define OWNED "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid}]"
#define POD(meta, spec, status) \
    "metadata: {name: p, namespace: default, uid: u1, creationTimestamp: '2023-12-31T23:00:00Z', " meta "}\n" \
    "spec: {containers: [{name: c, image: i}]" spec "}\nstatus: {phase: " status "}\n"

static const evictor_case cases[] = {
    {"owned running pod", POD(OWNED, "", "Running"), "", NULL},
    {"bare pod", POD("labels: {a: b}", "", "Running"), "", "pod does not have any ownerRefs"},
    {"bare failed pod, default", POD("labels: {a: b}", "", "Failed"), "", "pod does not have any ownerRefs"},
    {"bare failed pod with evictFailedBarePods", POD("labels: {a: b}", "", "Failed"),
     "evictFailedBarePods: true", NULL},
    {"bare running pod with evictFailedBarePods", POD("labels: {a: b}", "", "Running"),
     "evictFailedBarePods: true", "pod does not have any ownerRefs and is not in failed phase"},
    {"mirror pod", POD(OWNED ", annotations: {kubernetes.io/config.mirror: x}", "", "Running"), "",
     "pod is a mirror pod"},
    {"static pod", POD(OWNED ", annotations: {kubernetes.io/config.source: file}", "", "Running"), "",
     "pod is a static pod"},
    {"terminating pod", POD(OWNED ", deletionTimestamp: '2023-12-31T23:59:00Z'", "", "Running"), "",
     "pod is terminating"},
    {"daemonset pod", POD("ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: d}]", "",
                          "Running"),
     "", "daemonset pods are protected against eviction"},
    {"daemonset pod with evictDaemonSetPods", POD("ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, "
                                                  "name: ds, uid: d}]", "", "Running"),
     "evictDaemonSetPods: true", NULL},
    {"system critical", POD(OWNED, ", priority: 2000001000", "Running"), "",
     "pod has system critical priority and is protected against eviction"},
    {"system critical with evictSystemCriticalPods", POD(OWNED, ", priority: 2000001000", "Running"),
     "evictSystemCriticalPods: true", NULL},
    {"over the priority threshold", POD(OWNED, ", priority: 500", "Running"), "priorityThreshold: {value: 100}",
     "pod has higher priority than specified priority class threshold"},
    {"under the priority threshold", POD(OWNED, ", priority: 50", "Running"), "priorityThreshold: {value: 100}",
     NULL},
    {"local storage", POD(OWNED, ", volumes: [{name: v, emptyDir: {}}]", "Running"), "",
     "pod has local storage and is protected against eviction"},
    {"hostPath", POD(OWNED, ", volumes: [{name: v, hostPath: {path: /x}}]", "Running"), "",
     "pod has local storage and is protected against eviction"},
    {"local storage with evictLocalStoragePods", POD(OWNED, ", volumes: [{name: v, emptyDir: {}}]", "Running"),
     "evictLocalStoragePods: true", NULL},
    {"pvc, default", POD(OWNED, ", volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]", "Running"), "",
     NULL},
    {"pvc with ignorePvcPods", POD(OWNED, ", volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]",
                                   "Running"),
     "ignorePvcPods: true", "pod with PVC is protected against eviction"},
    {"evict annotation beats everything",
     POD("annotations: {descheduler.alpha.kubernetes.io/evict: 'true', kubernetes.io/config.mirror: x}", "",
         "Running"),
     "", NULL},
    {"prefer-no-eviction, Mandatory",
     POD(OWNED ", annotations: {descheduler.alpha.kubernetes.io/prefer-no-eviction: ''}", "", "Running"),
     "noEvictionPolicy: Mandatory",
     "pod has the prefer-no-eviction annotation and noEvictionPolicy is Mandatory"},
    {"prefer-no-eviction, Preferred",
     POD(OWNED ", annotations: {descheduler.alpha.kubernetes.io/prefer-no-eviction: ''}", "", "Running"),
     "noEvictionPolicy: Preferred", NULL},
    {"labelSelector", POD(OWNED ", labels: {app: x}", "", "Running"), "labelSelector: {matchLabels: {app: y}}",
     "pod labels do not match the labelSelector filter in the policy parameter"},
    {"minPodAge", POD(OWNED, "", "Running"), "minPodAge: 2h", "pod age is not older than MinPodAge"},
    {"minPodAge met", POD(OWNED, "", "Running"), "minPodAge: 30m", NULL},
    {"podsWithoutPDB", POD(OWNED, "", "Running"), "podProtections: {extraEnabled: [PodsWithoutPDB]}",
     "pod does not have a PodDisruptionBudget and is protected against eviction"},
};

static uint32_t two_pods(void *ctx, const ms_owner_ref *o) {
    (void)ctx, (void)o;
    return 2;
}

static void test_filter_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dx_env e;
        dx_init(&e);
        char text[1024];
        snprintf(text, sizeof text,
                 "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                 "  pluginConfig:\n  - {name: DefaultEvictor, args: {%s}}\n", cases[i].args);
        dx_policy(&e, text);
        ms_pod *p = fx_pod(&e.fx.d, cases[i].pod);
        ms_evictor_env env = {.in = e.fx.in, .now = DX_NOW, .owner_pods = two_pods};
        const char *why = ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env);
        if (cases[i].reason ? !why || strcmp(why, cases[i].reason) != 0 : why != NULL)
            fail_msg("%s: got %s, want %s", cases[i].what, why ? why : "evictable",
                     cases[i].reason ? cases[i].reason : "evictable");
        ms_pod_unref(p);
        dx_free(&e);
    }
}

static void test_min_replicas(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_policy(&e, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                  "  pluginConfig:\n  - {name: DefaultEvictor, args: {minReplicas: 3}}\n");
    ms_pod *p = fx_pod(&e.fx.d, POD(OWNED, "", "Running"));
    ms_evictor_env env = {.in = e.fx.in, .now = DX_NOW, .owner_pods = two_pods};
    assert_string_equal(ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env),
                        "owner has fewer replicas than minReplicas");
    ms_pod_unref(p);
    dx_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_table),
        cmocka_unit_test(test_min_replicas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
