/* Cluster deltas (core/scheduler/event_handlers.c): which events move
 * unschedulable pods, pods of other schedulers, deleted pending pods, and
 * namespaces reaching pod affinity's namespaceSelector. */
#include "testutil.h"

#include "scheduler_env.h"
#include "backend/queue.h"

static void test_node_add_moves_unschedulable_pod(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "small", "1", NULL, NULL);
    add_pod(e, "big", "2", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* A label change interests only TestHalf, which did not reject it. */
    ms_node *relabelled = mknode(e, "small", "1", "{\"x\":\"y\"}", NULL);
    ms_scheduler_node_update(e->s, relabelled, 1);
    ms_node_unref(relabelled);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    add_node(e, "large", "4", NULL, NULL);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_string_equal(node_of_last(e), "large");

    /* An allocatable change on a node also helps a pod TestFit rejected. */
    add_pod(e, "bigger", "8", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    ms_node *grown = mknode(e, "small", "16", "{\"x\":\"y\"}", NULL);
    ms_scheduler_node_update(e->s, grown, 101);
    ms_node_unref(grown);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 200);
    assert_true(ms_scheduler_schedule_one(e->s, 200));
    assert_string_equal(node_of_last(e), "small");
    env_free(e);
}

static void set_namespace(env *e, const char *name, const char *labels, double now) {
    char buf[512];
    snprintf(buf, sizeof buf, "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":%s}}", name,
             labels);
    cJSON *j = parse(buf);
    ms_namespace *ns = NULL;
    ms_error err = {0};
    if (ms_namespace_decode(&e->dec, j, &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_namespace_add(e->s, ns, now);
    ms_namespace_unref(ns);
}

/* A pod whose required pod affinity selects its peers' namespace by label
 * (namespaceSelector team=a) waits while no namespace carries the label;
 * labelling the peers' namespace (what the namespace informer delivers in
 * `run`) moves it out of the unschedulable pods at once, and it lands
 * next to its peer. */
static void test_namespace_label_moves_pod_affinity_pod(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "DefaultBinder", NULL};
    env *e = env_new_profile(0, 1, false, plugins);
    add_node(e, "n1", "4", "{\"kubernetes.io/hostname\":\"n1\"}", NULL);
    add_node(e, "n2", "4", "{\"kubernetes.io/hostname\":\"n2\"}", NULL);
    set_namespace(e, "db", "{\"team\":\"b\"}", 0);
    ms_pod *peer = decode_pod(
        e, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"db-0\",\"namespace\":\"db\",\"labels\":{\"app\":\"db\"}},"
           "\"spec\":{\"nodeName\":\"n2\",\"containers\":[{\"name\":\"c\",\"image\":\"pause\"}]}}");
    ms_scheduler_pod_add(e->s, peer, 0);
    add_pod(e, "web", "100m",
            ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
            "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},\"namespaceSelector\":{\"matchLabels\":"
            "{\"team\":\"a\"}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->nunschedulable, 1);
    assert_int_equal(e->nscheduled, 0);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* the same labels again: no change, the pod stays where it is */
    set_namespace(e, "db", "{\"team\":\"b\"}", 2);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    set_namespace(e, "db", "{\"team\":\"a\"}", 3);
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q), 1);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n2");
    env_free(e);
}

static void test_other_schedulers_ignored(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "theirs", "1", ",\"schedulerName\":\"batch-scheduler\"");
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(ms_scheduler_profile_index(e->s, ms_intern_cstr(e->in, "batch-scheduler")), -1);
    assert_int_equal(ms_scheduler_profile_index(e->s, ms_intern_cstr(e->in, "default-scheduler")), 0);
    /* Bound by their scheduler: counted in the cache all the same. */
    ms_pod *bound = add_pod(e, "theirs-bound", "1500m",
                            ",\"schedulerName\":\"batch-scheduler\",\"nodeName\":\"a\"");
    (void)bound;
    assert_int_equal(requested_cpu(e, "a"), 1500);
    env_free(e);
}

static void test_deleted_pending_pod_leaves_queue(void **state) {
    (void)state;
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    ms_pod *p = add_pod(e, "p", "1", NULL);
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 1);
    ms_scheduler_pod_delete(e->s, p, 0);
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 0);
    assert_false(ms_scheduler_schedule_one(e->s, 0));

    /* Bound by someone else while queued: leaves the queue, enters the cache. */
    add_pod(e, "q", "1", NULL);
    add_pod(e, "q", "1", ",\"nodeName\":\"a\"");
    assert_int_equal(ms_queue_len_active(ms_scheduler_queue(e->s)), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    /* Deleting the bound pod frees its resources. */
    ms_pod *qb = mkpod(e, "q", "1", ",\"nodeName\":\"a\"");
    ms_scheduler_pod_delete(e->s, qb, 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    env_free(e);
}

/* Namespaces reach the plugins: pod affinity's namespaceSelector matches
 * the labels of the namespaces the scheduler was given, as they are when
 * the pod is scheduled. */
static void namespace_event(env *e, const char *name, const char *labels) {
    char buf[256];
    snprintf(buf, sizeof buf, "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\",\"labels\":%s}}",
             name, labels);
    cJSON *j = parse(buf);
    ms_namespace *ns = NULL;
    ms_error err = {0};
    if (ms_namespace_decode(&e->dec, j, &ns, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_namespace_add(e->s, ns, 0);
    ms_namespace_unref(ns);
}

static ms_pod *ns_pod(env *e, const char *name, const char *ns, const char *app, const char *spec) {
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
             "\"labels\":{\"app\":\"%s\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]%s}}",
             name, ns, app, spec);
    return decode_pod(e, buf);
}

static void test_namespace_selector_through_the_scheduler(void **state) {
    (void)state;
    static const char *const plugins[] = {"PrioritySort", "InterPodAffinity", "DefaultBinder", NULL};
    env *e = env_new_profile(-1, 1, false, plugins);
    e->complete_at_once = true;
    add_node(e, "n1", "4", "{\"zone\":\"a\"}", NULL);
    add_node(e, "n2", "4", "{\"zone\":\"b\"}", NULL);
    add_node(e, "n3", "4", "{\"zone\":\"c\"}", NULL);
    namespace_event(e, "team-a", "{\"team\":\"a\"}");
    namespace_event(e, "team-b", "{\"team\":\"b\"}");
    ms_scheduler_pod_add(e->s, ns_pod(e, "web", "team-b", "web", ",\"nodeName\":\"n2\""), 0);
    static const char *const affinity =
        ",\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
        "\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}},"
        "\"namespaceSelector\":{\"matchLabels\":{\"team\":\"b\"}},\"topologyKey\":\"zone\"}]}}";
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-1", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n2");

    /* team-b no longer has the label: nothing is selected any more. */
    namespace_event(e, "team-b", "{\"team\":\"x\"}");
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-2", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message,
                        "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.");

    namespace_event(e, "team-b", "{\"team\":\"b\"}");
    ms_scheduler_namespace_delete(e->s, ms_intern_cstr(e->in, "team-b"), 0);
    ms_scheduler_pod_add(e->s, ns_pod(e, "api-3", "team-a", "api", affinity), 0);
    assert_true(ms_scheduler_schedule_one(e->s, 0));
    assert_int_equal(e->nunschedulable, 2);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_add_moves_unschedulable_pod),
        cmocka_unit_test(test_namespace_label_moves_pod_affinity_pod),
        cmocka_unit_test(test_other_schedulers_ignored),
        cmocka_unit_test(test_deleted_pending_pod_leaves_queue),
        cmocka_unit_test(test_namespace_selector_through_the_scheduler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
