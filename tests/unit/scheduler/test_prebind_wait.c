/* Binding cycles waiting in PreBind (core/scheduler/prebind_wait.c): the
 * scheduler goes on while a plugin waits for its claims; the plugin is
 * asked again on its events and at its deadline; a failed volume write,
 * a deleted claim or a deleted pod ends the wait. */
#include "testutil.h"

#include "scheduler_env.h"
#include "api/storage.h"
#include "backend/queue.h"
#include "scheduler/storage_events.h"
#include "codec/decode_storage.h"

static const char *const plugins[] = {"PrioritySort", "TestFit", "TestVolumeWait", "DefaultBinder", NULL};

static env *env_volumes(void) { return env_new_profile(0, 1, false, plugins); }

/* The claim default/NAME into the store, Pending or Bound. */
static void set_claim(env *e, const char *name, bool bound, int rv, double now) {
    char buf[512];
    snprintf(buf, sizeof buf,
             "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
             "\"resourceVersion\":\"%d\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
             "\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}},\"status\":{\"phase\":\"%s\"}}",
             name, rv, bound ? "Bound" : "Pending");
    cJSON *j = parse(buf);
    ms_storage_object *o = NULL;
    ms_error err = {0};
    if (ms_storage_decode(&e->dec, MS_SK_PVC, j, &o, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_storage_set(e->s, o, now);
    ms_storage_unref(o);
}

static uint32_t queued(env *e) {
    ms_queue *q = ms_scheduler_queue(e->s);
    return ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q);
}

static void test_waits_then_binds_on_claim_update(void **state) {
    (void)state;
    env *e = env_volumes();
    add_node(e, "a", "4", NULL, NULL);
    set_claim(e, "data", false, 1, 0);
    add_pod(e, "vol-data", "1", NULL);
    add_pod(e, "other", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    /* waiting in PreBind: assumed, not sent to the binder */
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_int_equal(e->nbinds, 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    /* the scheduling thread goes on with the next pod meanwhile */
    assert_true(ms_scheduler_schedule_one(e->s, 10.1));
    assert_int_equal(e->nbinds, 1);
    complete_binds(e, true, false, 10.2);
    /* an update that does not bind the claim: still waiting */
    set_claim(e, "data", false, 2, 11);
    assert_int_equal(e->nbinds, 0);
    set_claim(e, "data", true, 3, 12);
    assert_int_equal(e->nbinds, 1);
    assert_string_equal(ms_str_get(e->in, e->binds[0].node), "a");
    complete_binds(e, true, false, 12);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 2000);
    assert_int_equal(e->nbind_failed, 0);
    env_free(e);
}

static void test_deadline_fails_and_requeues(void **state) {
    (void)state;
    env *e = env_volumes();
    add_node(e, "a", "4", NULL, NULL);
    set_claim(e, "data", false, 1, 0);
    add_pod(e, "vol-data", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    ms_scheduler_tick(e->s, 39.9);
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    ms_scheduler_tick(e->s, 40);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(e->nbinds, 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(e->nbind_failed, 1);
    assert_string_equal(e->last_message,
                        "running PreBind plugin \"TestVolumeWait\": timed out waiting for the condition");
    /* retried, and reported as upstream reports a binding error */
    assert_int_equal(queued(e), 1);
    assert_int_equal(e->nbinding_errors, 1);
    assert_string_equal(e->binding_error, e->last_message);
    env_free(e);
}

static void test_write_failure_and_claim_deletion_end_the_wait(void **state) {
    (void)state;
    env *e = env_volumes();
    add_node(e, "a", "4", NULL, NULL);
    set_claim(e, "one", false, 1, 0);
    set_claim(e, "two", false, 1, 0);
    ms_pod *one = add_pod(e, "vol-one", "1", NULL);
    add_pod(e, "vol-two", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(ms_scheduler_binding_count(e->s), 2);
    ms_scheduler_volume_write_failed(e->s, one, "the object has been modified", 11);
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_string_equal(e->last_message, "running PreBind plugin \"TestVolumeWait\": the object has been modified");
    /* a failure for a pod no longer waiting is ignored */
    ms_scheduler_volume_write_failed(e->s, one, "late", 11);
    assert_int_equal(e->nbind_failed, 1);
    /* the claim deleted: asked again, the plugin fails */
    ms_scheduler_storage_delete(e->s, MS_SK_PVC, ms_intern_cstr(e->in, "default"), ms_intern_cstr(e->in, "two"),
                                12);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_string_equal(e->last_message, "running PreBind plugin \"TestVolumeWait\": claim gone");
    assert_int_equal(e->nbind_failed, 2);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(queued(e), 2);
    env_free(e);
}

static void test_pod_deleted_while_waiting(void **state) {
    (void)state;
    env *e = env_volumes();
    add_node(e, "a", "4", NULL, NULL);
    set_claim(e, "data", false, 1, 0);
    ms_pod *p = add_pod(e, "vol-data", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    ms_scheduler_pod_delete(e->s, p, 11);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(queued(e), 0);
    /* gone: nothing to report on the pod */
    assert_int_equal(e->nbinding_errors, 0);
    /* a later claim update finds nothing waiting */
    set_claim(e, "data", true, 2, 12);
    assert_int_equal(e->nbinds, 0);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_then_binds_on_claim_update),
        cmocka_unit_test(test_deadline_fails_and_requeues),
        cmocka_unit_test(test_write_failure_and_claim_deletion_end_the_wait),
        cmocka_unit_test(test_pod_deleted_while_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
