/* Storage-object deltas into the scheduler: they reach the volume store
 * (add, update, delete by kind and key) and move the pods whose rejecting
 * plugin registered the event, and only those (upstream's
 * EventsToRegister). */
#include "scheduler_env.h"

#include "backend/queue.h"
#include "fixtures.h"
#include "scheduler/storage_events.h"

static const char *const volume_plugins[] = {"PrioritySort", "VolumeBinding", "DefaultBinder", NULL};

static void set(env *e, ms_storage_kind kind, const char *yaml) {
    ms_storage_object *o = fx_storage(&e->dec, kind, yaml);
    ms_scheduler_storage_set(e->s, o, 0);
    ms_storage_unref(o);
}

static void test_events_move_rejected_pods(void **state) {
    (void)state;
    env *e = env_new_profile(100, 1, false, volume_plugins);
    add_node(e, "n1", "4", NULL, NULL);
    add_pod(e, "p", "100m", ",\"volumes\":[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}}]");
    assert_true(ms_scheduler_schedule_one(e->s, 1));
    assert_int_equal(e->nunschedulable, 1);
    assert_non_null(strstr(e->last_message, "persistentvolumeclaim \"data\" not found"));
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);

    /* VolumeBinding does not register CSIDriver creation (only updates) */
    set(e, MS_SK_CSI_DRIVER, "metadata: {name: d.example.com}");
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    /* nor deletions */
    ms_scheduler_storage_delete(e->s, MS_SK_CSI_DRIVER, MS_STR_NONE, ms_intern_cstr(e->in, "d.example.com"), 2);
    assert_int_equal(ms_queue_len_unschedulable(q), 1);
    assert_int_equal(ms_volume_store_count(ms_scheduler_volume_store(e->s), MS_SK_CSI_DRIVER), 0);

    /* the claim appears: the pod is tried again and placed */
    set(e, MS_SK_STORAGE_CLASS, "metadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\n"
                                "volumeBindingMode: WaitForFirstConsumer");
    set(e, MS_SK_PV, "metadata: {name: pv1}\nspec: {capacity: {storage: 1Gi}, storageClassName: local,"
                     " claimRef: {namespace: default, name: data}}\nstatus: {phase: Bound}");
    set(e, MS_SK_PVC, "metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: \"yes\"}}\n"
                      "spec: {volumeName: pv1, storageClassName: local}");
    assert_int_equal(ms_queue_len_unschedulable(q), 0);
    ms_scheduler_tick(e->s, 100);
    assert_true(ms_scheduler_schedule_one(e->s, 100));
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "n1");
    env_free(e);
}

static void test_event_kinds(void **state) {
    (void)state;
    assert_int_equal(ms_storage_event(MS_SK_PV, false), MS_EV_PV_ADD);
    assert_int_equal(ms_storage_event(MS_SK_PV, true), MS_EV_PV_UPDATE);
    assert_int_equal(ms_storage_event(MS_SK_PVC, true), MS_EV_PVC_UPDATE);
    assert_int_equal(ms_storage_event(MS_SK_STORAGE_CLASS, false), MS_EV_STORAGE_CLASS_ADD);
    assert_int_equal(ms_storage_event(MS_SK_CSI_NODE, true), MS_EV_CSI_NODE_UPDATE);
    assert_int_equal(ms_storage_event(MS_SK_CSI_DRIVER, true), MS_EV_CSI_DRIVER_UPDATE);
    assert_int_equal(ms_storage_event(MS_SK_CSI_CAPACITY, false), MS_EV_CSI_CAPACITY_ADD);
    assert_int_equal(ms_storage_event(MS_SK_COUNT, false), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_move_rejected_pods),
        cmocka_unit_test(test_event_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
