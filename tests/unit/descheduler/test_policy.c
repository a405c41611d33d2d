/* DeschedulerPolicy decoding: the fields, the defaults (DefaultEvictor
 * always there), and upstream's validation messages. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"
#include "descheduler/plugin.h"

#define HEAD "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"

static void test_full_policy(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_policy(&e, HEAD
              "nodeSelector: 'pool=general'\n"
              "maxNoOfPodsToEvictPerNode: 5\nmaxNoOfPodsToEvictPerNamespace: 3\nmaxNoOfPodsToEvictTotal: 10\n"
              "profiles:\n"
              "- name: one\n"
              "  pluginConfig:\n"
              "  - name: DefaultEvictor\n"
              "    args: {evictLocalStoragePods: true, nodeFit: true, minReplicas: 2, minPodAge: 5m,\n"
              "           priorityThreshold: {value: 1000}}\n"
              "  - name: RemovePodsViolatingNodeTaints\n"
              "    args: {excludedTaints: [dedicated]}\n"
              "  - name: LowNodeUtilization\n"
              "    args: {thresholds: {cpu: 20, memory: 20}, targetThresholds: {cpu: 50, memory: 50}}\n"
              "  plugins:\n"
              "    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n"
              "    balance: {enabled: [LowNodeUtilization]}\n"
              "- name: two\n"
              "  pluginConfig:\n"
              "  - {name: PodLifeTime, args: {maxPodLifeTimeSeconds: 86400}}\n"
              "  plugins:\n"
              "    deschedule: {enabled: [PodLifeTime]}\n"
              "    filter: {enabled: [DefaultEvictor]}\n"
              "    preevictionfilter: {enabled: [DefaultEvictor]}\n");
    const ms_desched_policy *p = &e.policy;
    assert_int_equal(p->nprofiles, 2);
    assert_true(p->max_per_node.set);
    assert_int_equal(p->max_per_node.value, 5);
    assert_int_equal(p->max_per_namespace.value, 3);
    assert_int_equal(p->max_total.value, 10);
    assert_true(p->has_node_selector);
    const ms_desched_profile *one = &p->profiles[0], *two = &p->profiles[1];
    assert_string_equal(one->name, "one");
    assert_int_equal(one->ndeschedule, 1);
    assert_string_equal(one->deschedule[0].def->name, "RemovePodsViolatingNodeTaints");
    assert_int_equal(one->nbalance, 1);
    assert_string_equal(one->balance[0].def->name, "LowNodeUtilization");
    /* evictLocalStoragePods drops that protection, keeps the other three */
    assert_int_equal(one->evictor.protections,
                     MS_PROTECT_DAEMONSET | MS_PROTECT_SYSTEM_CRITICAL | MS_PROTECT_FAILED_BARE);
    assert_true(one->evictor.node_fit);
    assert_int_equal(one->evictor.min_replicas, 2);
    assert_true(one->evictor.min_pod_age == 300);
    assert_int_equal(one->evictor.priority_threshold, 1000);
    /* a profile without DefaultEvictor args gets upstream's defaults */
    assert_int_equal(two->evictor.protections, MS_PROTECT_LOCAL_STORAGE | MS_PROTECT_DAEMONSET |
                                                   MS_PROTECT_SYSTEM_CRITICAL | MS_PROTECT_FAILED_BARE);
    assert_int_equal(two->evictor.priority_threshold, MS_SYSTEM_CRITICAL_PRIORITY);
    assert_int_equal(two->ndeschedule, 1);
    dx_free(&e);
}

static void test_pod_protections(void **state) {
    (void)state;
    dx_env e;
    dx_init(&e);
    dx_policy(&e, HEAD "profiles:\n- name: p\n  pluginConfig:\n"
                       "  - {name: DefaultEvictor, args: {podProtections: {defaultDisabled: [DaemonSetPods],"
                       " extraEnabled: [PodsWithPVC]}}}\n");
    assert_int_equal(e.policy.profiles[0].evictor.protections,
                     MS_PROTECT_LOCAL_STORAGE | MS_PROTECT_SYSTEM_CRITICAL | MS_PROTECT_FAILED_BARE |
                         MS_PROTECT_PVC);
    dx_free(&e);
}

typedef struct bad_case {
    const char *yaml;
    const char *message;
} bad_case;

static void test_upstream_messages(void **state) {
    (void)state;
    static const bad_case cases[] = {
        {"apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\n",
         "failed decoding descheduler's policy config \"policy.yaml\": no kind \"DeschedulerPolicy\" is "
         "registered for version \"descheduler/v1alpha1\" in scheme"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n  - {name: NoSuchPlugin}\n",
         "in profile p: plugin NoSuchPlugin in pluginConfig not registered"},
        /* Strict decoding: every unknown field of the object, the args'
         * (relative to args) before the policy's. */
        {HEAD "maxNoOfPodsToEvictPerNod: 1\nprofiles:\n- name: p\n  plugins: {deschedule: {enable: [x]}}\n",
         "failed decoding descheduler's policy config \"policy.yaml\": strict decoding error: unknown field "
         "\"maxNoOfPodsToEvictPerNod\", unknown field \"profiles[0].plugins.deschedule.enable\""},
        {HEAD "nodeSelectr: x\nprofiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: DefaultEvictor, args: {podProtections: {config: {PodsWithPVC: {protectedStorageClasses: "
              "[{name: a, size: 1}]}}}, minAge: 1m}}\n",
         "failed decoding descheduler's policy config \"policy.yaml\": strict decoding error: unknown field "
         "\"podProtections.config.PodsWithPVC.protectedStorageClasses[0].size\", unknown field \"minAge\""},
        /* a key given twice, at any depth: yaml.v2's words, as a strict
         * decoding error */
        {HEAD "maxNoOfPodsToEvictTotal: 1\nprofiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20, cpu: 30}, targetThresholds: {cpu: 50}}}\n",
         "failed decoding descheduler's policy config \"policy.yaml\": strict decoding error: yaml: unmarshal errors:\n"
         "  line 7: key \"cpu\" already set in map"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: PodLifeTime, args: {maxPodLifeTimeSeconds: 5, labelSelector: {matchLabel: {a: b}}}}\n",
         "failed decoding descheduler's policy config \"policy.yaml\": strict decoding error: unknown field "
         "\"labelSelector.matchLabel\""},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}\n"
              "  plugins: {deschedule: {enabled: [LowNodeUtilization]}}\n",
         "profile \"p\" configures deschedule extension point of plugin \"LowNodeUtilization\", which is a balance "
         "plugin"},
        /* a misspelt name: what was meant, not a Go map */
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}\n"
              "  plugins: {balance: {enabled: [LowNodeUtilizatoin]}}\n",
         "profile \"p\" configures balance extension point of non-existing plugin \"LowNodeUtilizatoin\" (did you mean "
         "\"LowNodeUtilization\"?)"},
        {HEAD "profiles:\n- name: p\n  plugins: {deschedule: {enabled: [Evict]}}\n",
         "profile \"p\" configures deschedule extension point of non-existing plugin \"Evict\""},
        {HEAD "profiles:\n- name: p\n  plugins: {filter: {enabled: [PodLifeTime]}}\n",
         "profile \"p\" configures filter extension point of plugin \"PodLifeTime\", which is a deschedule plugin"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n  - {name: PodLifeTim, args: {}}\n",
         "in profile p: plugin PodLifeTim in pluginConfig not registered (did you mean PodLifeTime?)"},
        {HEAD "profiles:\n- name: p\n  plugins: {deschedule: {enabled: [PodLifeTime]}}\n",
         "unable to create \"p\" profile: unable to build PodLifeTime plugin: unable to find "
         "\"PodLifeTime\" plugin config"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: RemovePodsViolatingNodeTaints, args: {excludedTaints: [a], includedTaints: [b]}}\n",
         "in profile p: either includedTaints or excludedTaints can be set, but not both"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: RemoveDuplicates, args: {namespaces: {include: [a], exclude: [b]}}}\n",
         "in profile p: only one of Include/Exclude namespaces can be set"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: PodLifeTime, args: {namespaces: {include: [a], exclude: [b]}}}\n",
         "in profile p: [only one of Include/Exclude namespaces can be set, at least one filtering "
         "criterion must be specified (maxPodLifeTimeSeconds, states, conditions, or exitCodes)]"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 60}, targetThresholds: {cpu: 50}}}\n",
         "in profile p: thresholds' cpu percentage is greater than targetThresholds'"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 101}, targetThresholds: {cpu: 50}}}\n",
         "in profile p: thresholds config is not valid: cpu threshold not in [0, 100] range"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 10}, targetThresholds: {memory: 50}}}\n",
         "in profile p: thresholds and targetThresholds configured different resources"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: LowNodeUtilization, args: {targetThresholds: {memory: 50}}}\n",
         "in profile p: thresholds config is not valid: no resource threshold is configured"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: HighNodeUtilization, args: {thresholds: {cpu: 10}, evictableNamespaces: {include: [a]}}}\n",
         "in profile p: only Exclude namespaces can be set, inclusion is not supported"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: RemovePodsHavingTooManyRestarts, args: {states: [Pending]}}\n",
         "in profile p: [invalid PodsHavingTooManyRestarts threshold, states must be one of "
         "[CrashLoopBackOff Running]]"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: RemovePodsViolatingNodeAffinity, args: {}}\n",
         "in profile p: nodeAffinityType needs to be set"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: DefaultEvictor, args: {priorityThreshold: {value: 10, name: x}}}\n",
         "in profile p: priority threshold misconfigured, only one of priorityThreshold fields can be set"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: DefaultEvictor, args: {evictDaemonSetPods: true, podProtections: {extraEnabled: [PodsWithPVC]}}}\n",
         "in profile p: cannot use Deprecated fields alongside PodProtections.ExtraEnabled or "
         "PodProtections.DefaultDisabled"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: DefaultEvictor, args: {podProtections: {extraEnabled: [DaemonSetPods]}}}\n",
         "in profile p: invalid pod protection policy in ExtraEnabled: \"DaemonSetPods\". Valid options "
         "are: [PodsWithPVC PodsWithoutPDB PodsWithResourceClaims]"},
        {HEAD "profiles:\n- name: p\n  pluginConfig:\n"
              "  - {name: DefaultEvictor, args: {noEvictionPolicy: Sometimes}}\n",
         "in profile p: noEvictionPolicy accepts only [\"Preferred\" \"Mandatory\"] values"},
        {HEAD "maxNoOfPodsToEvictPerNode: -1\n",
         "maxNoOfPodsToEvictPerNode: Invalid value: -1: must be between 0 and 4294967295"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dx_env e;
        dx_init(&e);
        ms_error err = {0};
        const char *msg = dx_policy_error(&e, cases[i].yaml, &err);
        if (strcmp(msg, cases[i].message) != 0)
            fail_msg("case %zu:\n got: %s\nwant: %s", i, msg, cases[i].message);
        dx_free(&e);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_policy),
        cmocka_unit_test(test_pod_protections),
        cmocka_unit_test(test_upstream_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
