/* simulate --deschedule through ms_simulate_run on a cluster given as
 * text, with no pending pod (the shape of `moonsched deschedule`'s):
 * utilisation before the pass leaves a Succeeded pod out, and the same
 * objects in another order give the same report. A cluster of nodes
 * without any pod, and one without any object, have empty (NULL) lists to
 * sort, which the ASan+UBSan build of this test would stop at. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moonsched/simulate.h"

#define NODE(n) "---\nkind: Node\nmetadata: {name: " n "}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n"
#define POD(n, node, phase)                                                                                     \
    "---\nkind: Pod\nmetadata: {name: " n ", namespace: default, uid: " n ", creationTimestamp: '2024-01-01T00:00:00Z', " \
    "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs}]}\n"                          \
    "spec: {nodeName: " node ", containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}\n"        \
    "status: {phase: " phase "}\n"

static const char *const in_order = NODE("a") NODE("b") POD("p1", "a", "Running") POD("p2", "a", "Succeeded")
    POD("p3", "a", "Running");
static const char *const shuffled = POD("p3", "a", "Running") NODE("b") POD("p2", "a", "Succeeded") NODE("a")
    POD("p1", "a", "Running");

static const char policy[] = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                             "  pluginConfig:\n  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, "
                             "targetThresholds: {cpu: 60}}}\n  plugins:\n    balance: {enabled: [LowNodeUtilization]}\n";

/* The JSON report of the pass over the cluster text. */
static char *report(const char *cluster, const char *policy_file) {
    ms_simulate_options o;
    ms_simulate_options_default(&o);
    size_t len = strlen(cluster);
    const char *name = "cluster.yaml";
    o.cluster_texts = &cluster;
    o.cluster_text_lens = &len;
    o.cluster_text_names = &name;
    o.ncluster_texts = 1;
    o.deschedule = policy_file;
    o.output = MS_OUTPUT_JSON;
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    ms_error err = {0};
    ms_rc rc = ms_simulate_run(&o, out, stderr, NULL, &err);
    fclose(out);
    if (rc != MS_OK) fail_msg("simulate: %s", err.msg);
    return text;
}

/* The policy in a new file named from the template at path. */
static void write_policy(char *path) {
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, policy, sizeof policy - 1), (ssize_t)(sizeof policy - 1));
    close(fd);
}

static void test_report(void **state) {
    (void)state;
    char path[] = "/tmp/moonsched-policy-XXXXXX";
    write_policy(path);
    char *a = report(in_order, path), *b = report(shuffled, path);
    unlink(path);
    /* node a: two running pods of 500m on 1 cpu; the Succeeded one holds nothing */
    assert_non_null(strstr(a, "\"before\":"));
    assert_non_null(strstr(a, "\"node\":\t\"a\",\n\t\t\t\"cpu\":\t100,\n\t\t\t\"memory\":\t0,\n\t\t\t\"pods\":\t2"));
    assert_non_null(strstr(a, "\"after\":"));
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static void test_no_pods(void **state) {
    (void)state;
    char path[] = "/tmp/moonsched-policy-XXXXXX";
    write_policy(path);
    char *a = report(NODE("a") NODE("b"), path), *none = report("", path);
    unlink(path);
    assert_non_null(strstr(a, "\"evictions\":\t[]"));
    assert_non_null(strstr(a, "\"node\":\t\"b\",\n\t\t\t\"cpu\":\t0,\n\t\t\t\"memory\":\t0,\n\t\t\t\"pods\":\t0"));
    assert_non_null(strstr(none, "\"evictions\":\t[]"));
    free(a);
    free(none);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_no_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
