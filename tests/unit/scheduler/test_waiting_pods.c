/* Pods waiting on Permit (core/scheduler/waiting_pods.c): rejected at
 * their deadline, let through (simulate's rule), deleted while waiting. */
#include "testutil.h"

#include "scheduler_env.h"
#include "backend/queue.h"

static void test_permit_wait(void **state) {
    (void)state;
    /* Upstream: the wait times out, the pod is rejected and unreserved. */
    env *e = env_new(0, 1);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "wait-1", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    assert_int_equal(ms_scheduler_binding_count(e->s), 1);
    assert_true(ms_scheduler_next_permit_deadline(e->s) == 15);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    assert_int_equal(e->nscheduled, 0);
    ms_scheduler_tick(e->s, 14.9);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 1);
    ms_scheduler_tick(e->s, 15);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 0);
    assert_int_equal(e->nunschedulable, 1);
    assert_string_equal(e->last_message, "rejected due to timeout after waiting at Permit");
    assert_int_equal(e->nbinds, 0);
    ms_queue *q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_unschedulable(q) + ms_queue_len_backoff(q), 1);
    env_free(e);

    /* simulate's rule: let through when the wait ends. */
    e = env_new_with(0, 1, true);
    add_node(e, "a", "4", NULL, NULL);
    add_pod(e, "wait-1", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 10));
    assert_int_equal(e->nscheduled, 0);
    ms_scheduler_tick(e->s, 15);
    assert_int_equal(e->nscheduled, 1);
    assert_string_equal(node_of_last(e), "a");
    assert_int_equal(e->nbinds, 1);
    complete_binds(e, true, false, 15);
    assert_int_equal(ms_scheduler_binding_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);

    /* Deleted while waiting: released at once, not requeued. */
    ms_pod *w2 = add_pod(e, "wait-2", "1", NULL);
    assert_true(ms_scheduler_schedule_one(e->s, 20));
    assert_int_equal(requested_cpu(e, "a"), 2000);
    ms_scheduler_pod_delete(e->s, w2, 21);
    assert_int_equal(ms_scheduler_waiting_count(e->s), 0);
    assert_int_equal(requested_cpu(e, "a"), 1000);
    q = ms_scheduler_queue(e->s);
    assert_int_equal(ms_queue_len_active(q) + ms_queue_len_backoff(q) + ms_queue_len_unschedulable(q),
                     0);
    env_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permit_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
