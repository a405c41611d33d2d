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
    /* created an hour before the pass; upstream counts from status.startTime */
    {"minPodAge", POD(OWNED, "", "Running, startTime: '2023-12-31T23:00:00Z'"), "minPodAge: 2h",
     "pod age is not older than MinPodAge"},
    {"minPodAge met", POD(OWNED, "", "Running, startTime: '2023-12-31T23:00:00Z'"), "minPodAge: 30m", NULL},
    {"minPodAge, started 10 minutes ago", POD(OWNED, "", "Running, startTime: '2023-12-31T23:50:00Z'"),
     "minPodAge: 30m", "pod age is not older than MinPodAge"},
    {"minPodAge, not started", POD(OWNED, "", "Pending"), "minPodAge: 30m", "pod age is not older than MinPodAge"},
    {"podsWithoutPDB", POD(OWNED, "", "Running"), "podProtections: {extraEnabled: [PodsWithoutPDB]}",
     "pod does not have a PodDisruptionBudget and is protected against eviction"},
    /* Every failing check, aggregated as upstream's Filter logs them. */
    {"mirror, bare and with local storage",
     POD("annotations: {kubernetes.io/config.mirror: x}", ", volumes: [{name: v, emptyDir: {}}]", "Running"), "",
     "[pod is a mirror pod, pod does not have any ownerRefs, pod has local storage and is protected against "
     "eviction]"},
    {"terminating and too young", POD(OWNED ", deletionTimestamp: '2023-12-31T23:59:00Z'", "",
                                      "Running, startTime: '2023-12-31T23:00:00Z'"),
     "minPodAge: 2h", "[pod is terminating, pod age is not older than MinPodAge]"},
    {"system critical over a threshold given: both",
     POD(OWNED, ", priority: 2000001000", "Running"), "priorityThreshold: {value: 100}",
     "[pod has system critical priority and is protected against eviction, pod has higher priority than "
     "specified priority class threshold]"},
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
        char buf[512];
        const char *why = ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env, buf, sizeof buf);
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
    char buf[512];
    assert_string_equal(ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env, buf, sizeof buf),
                        "owner has fewer replicas than minReplicas");
    ms_pod_unref(p);
    /* several owners: upstream skips the check */
    p = fx_pod(&e.fx.d, POD("ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid}, "
                            "{apiVersion: v1, kind: Service, name: s, uid: s-uid}]", "", "Running"));
    assert_null(ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env, buf, sizeof buf));
    ms_pod_unref(p);
    dx_free(&e);
}

/* The ASan build reports a read of a returned function's frame (the
 * reasons built for one pod once came from there). */
const char *__asan_default_options(void) { return "detect_stack_use_after_return=1"; }

/* Overwrites the stack below the caller, where a returned callee's frame
 * was, so that the plain build sees such a read too. */
static __attribute__((noinline)) void scribble_stack(void) {
    volatile char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)0x80;
}

/* Claims: "fast-claim" of class fast, "slow-claim" of class slow,
 * "bare-claim" without a class; any other is not known. */
static bool claim_class(void *ctx, ms_str ns, ms_str claim, ms_str *cls) {
    ms_interner *in = ctx;
    (void)ns;
    const char *c = ms_str_get(in, claim);
    if (strcmp(c, "bare-claim") == 0) return *cls = MS_STR_NONE, true;
    if (strcmp(c, "fast-claim") != 0 && strcmp(c, "slow-claim") != 0) return false;
    *cls = ms_intern(in, c, 4);
    return true;
}

static void test_protected_storage_classes(void **state) {
    (void)state;
    static const struct {
        const char *claims, *reason;
    } pvc_cases[] = {
        {"[{name: v, persistentVolumeClaim: {claimName: slow-claim}}]", NULL},
        {"[{name: v, persistentVolumeClaim: {claimName: fast-claim}}]", "pod using protected storage class \"fast\""},
        {"[{name: a, persistentVolumeClaim: {claimName: fast-claim}}, {name: b, persistentVolumeClaim: {claimName: gone}}]",
         "failed to get persistent volume claim \"default\"/\"gone\": persistentvolumeclaim \"gone\" not found"},
        {"[{name: v, persistentVolumeClaim: {claimName: bare-claim}}]",
         "failed to resolve storage class for pod \"default\"/\"bare-claim\""},
    };
    for (size_t i = 0; i < sizeof pvc_cases / sizeof pvc_cases[0]; i++) {
        dx_env e;
        dx_init(&e);
        dx_policy(&e, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                      "  pluginConfig:\n  - {name: DefaultEvictor, args: {podProtections: {extraEnabled: [PodsWithPVC], "
                      "config: {PodsWithPVC: {protectedStorageClasses: [{name: fast}]}}}}}\n");
        char yaml[1024];
        snprintf(yaml, sizeof yaml, POD(OWNED, ", volumes: %s", "Running"), pvc_cases[i].claims);
        ms_pod *p = fx_pod(&e.fx.d, yaml);
        ms_evictor_env env = {.in = e.fx.in, .now = DX_NOW, .claim_class = claim_class, .claim_ctx = e.fx.in};
        char buf[512];
        const char *why = ms_default_evictor_filter(&e.policy.profiles[0].evictor, p, &env, buf, sizeof buf);
        scribble_stack();   /* the reason must not live in the filter's own frame */
        if (pvc_cases[i].reason ? !why || strcmp(why, pvc_cases[i].reason) != 0 : why != NULL)
            fail_msg("case %zu: got %s, want %s", i, why ? why : "evictable", pvc_cases[i].reason ? pvc_cases[i].reason : "evictable");
        ms_pod_unref(p);
        dx_free(&e);
    }
    dx_env e;
    dx_init(&e);
    ms_error err;
    const char *msg = dx_policy_error(&e, "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n"
                                          "- name: p\n  pluginConfig:\n  - {name: DefaultEvictor, args: {podProtections: "
                                          "{extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: "
                                          "[{name: ''}]}}}}}\n", &err);
    assert_string_equal(msg, "in profile p: PodProtections.Config.PodsWithPVC.ProtectedStorageClasses[0] name cannot "
                             "be empty");
    dx_free(&e);
}

/* The cluster's PriorityClasses: "batch-high" of value 500. */
static bool priority_class(void *ctx, ms_str name, int32_t *value) {
    if (strcmp(ms_str_get(ctx, name), "batch-high") != 0) return false;
    *value = 500;
    return true;
}

static const char *resolve(dx_env *e, const char *name, ms_error *err) {
    char text[512];
    snprintf(text, sizeof text,
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
             "  pluginConfig:\n  - {name: DefaultEvictor, args: {priorityThreshold: {name: %s}}}\n", name);
    dx_policy(e, text);
    ms_default_evictor_args *a = &e->policy.profiles[0].evictor;
    return ms_default_evictor_resolve(a, e->fx.in, priority_class, e->fx.in, err) == MS_OK ? NULL : err->msg;
}

static void test_priority_threshold_name(void **state) {
    (void)state;
    dx_env e;
    ms_error err;
    dx_init(&e);
    assert_null(resolve(&e, "batch-high", &err));
    const ms_default_evictor_args *a = &e.policy.profiles[0].evictor;
    assert_true(a->has_priority_threshold);
    assert_int_equal(a->priority_threshold, 500);
    ms_evictor_env env = {.in = e.fx.in, .now = DX_NOW, .owner_pods = two_pods};
    char buf[512];
    ms_pod *hi = fx_pod(&e.fx.d, POD(OWNED, ", priority: 500", "Running"));
    ms_pod *lo = fx_pod(&e.fx.d, POD(OWNED, ", priority: 499", "Running"));
    assert_string_equal(ms_default_evictor_filter(a, hi, &env, buf, sizeof buf),
                        "pod has higher priority than specified priority class threshold");
    assert_null(ms_default_evictor_filter(a, lo, &env, buf, sizeof buf));
    ms_pod_unref(hi);
    ms_pod_unref(lo);
    dx_free(&e);

    dx_init(&e);   /* a built-in class resolves without the cluster's list */
    assert_null(resolve(&e, "system-cluster-critical", &err));
    assert_int_equal(e.policy.profiles[0].evictor.priority_threshold, MS_SYSTEM_CRITICAL_PRIORITY);
    dx_free(&e);

    dx_init(&e);
    assert_string_equal(resolve(&e, "no-such-class", &err),
                        "failed to get priority threshold: unable to get priority value from the priority class: "
                        "priorityclasses.scheduling.k8s.io \"no-such-class\" not found");
    dx_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_table),
        cmocka_unit_test(test_min_replicas),
        cmocka_unit_test(test_protected_storage_classes),
        cmocka_unit_test(test_priority_threshold_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
