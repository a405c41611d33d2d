/* PodLifeTime: pods older than maxPodLifeTimeSeconds, the oldest first,
 * and the states filter. */
#include "testutil.h"
#include "fixtures.h"
#include "descheduler/desched_fixtures.h"

static ms_pod *aged(dx_env *e, const char *name, const char *created, const char *status) {
    char text[1024];
    snprintf(text, sizeof text,
             "metadata: {name: %s, namespace: default, uid: u-%s, creationTimestamp: '%s',\n"
             "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: r}]}\n"
             "spec: {containers: [{name: c, image: i}]}\nstatus: %s\n",
             name, name, created, status);
    return dx_pod_yaml(e, "n1", text);
}

static void cluster(dx_env *e) {
    dx_node(e, "n1", 4000, 4096, 110, "", "");
    aged(e, "young", "2023-12-31T23:30:00Z", "{phase: Running}");
    aged(e, "old", "2023-12-30T00:00:00Z", "{phase: Running}");
    aged(e, "older", "2023-12-01T00:00:00Z", "{phase: Pending, containerStatuses: "
                                             "[{name: c, state: {waiting: {reason: ImagePullBackOff}}}]}");
    aged(e, "evicted", "2023-12-31T00:00:00Z", "{phase: Failed, reason: NodeLost}");
}

static void expect(const char *top, const char *args, const char *want) {
    dx_expect(cluster, top, "PodLifeTime", "deschedule", args, want);
}

static void test_max_lifetime_oldest_first(void **state) {
    (void)state;
    expect("", "maxPodLifeTimeSeconds: 3600", "older,old,evicted");
    expect("", "maxPodLifeTimeSeconds: 86400", "older,old");
    expect("maxNoOfPodsToEvictTotal: 1\n", "maxPodLifeTimeSeconds: 3600", "older");
}

static void test_states(void **state) {
    (void)state;
    expect("", "maxPodLifeTimeSeconds: 60, states: [Running]", "old,young");
    expect("", "states: [ImagePullBackOff]", "older");
    expect("", "states: [NodeLost]", "evicted");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_lifetime_oldest_first),
        cmocka_unit_test(test_states),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
